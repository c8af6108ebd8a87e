package org.p2psip.loadtest.bench;

/**
 * Open-loop pacing at a fixed rate: the k-th request (from 0) is due
 * {@code k / rate} seconds after the start, whether or not earlier ones
 * have been answered — a slow server does not slow the offered load down,
 * which is what a registrar meets in the field (thousands of independent
 * phones) and what keeps a closed loop from hiding overload. A sender that
 * falls behind (a pause, a busy core) catches up at once, and
 * {@link #lagNanos} says by how much it was late.
 *
 * <p>Pure: time is passed in.
 */
public final class OpenLoopPacer {

    private final long start;
    private final double perNano;
    private final long limit;
    private final long stopAt;

    /**
     * @param start       when request 0 is due
     * @param ratePerSecond requests per second, more than 0
     * @param limit       how many requests in all
     * @param durationNanos nothing is due at or after {@code start + durationNanos}
     */
    public OpenLoopPacer(long start, double ratePerSecond, long limit, long durationNanos) {
        if (!(ratePerSecond > 0) || limit < 0 || durationNanos < 0) {
            throw new IllegalArgumentException("need rate > 0, limit >= 0, duration >= 0");
        }
        this.start = start;
        this.perNano = ratePerSecond / 1e9;
        this.limit = limit;
        this.stopAt = start + durationNanos;
    }

    /** How many requests should have been sent by {@code now}, counting from the start. */
    public long dueBy(long now) {
        if (now < start) {
            return 0;
        }
        long t = Math.min(now, stopAt - 1);
        if (t < start) {
            return 0;
        }
        long due = (long) Math.floor((t - start) * perNano) + 1;
        return Math.min(due, limit);
    }

    /** When request {@code k} is due. */
    public long dueAt(long k) {
        return start + (long) Math.ceil(k / perNano);
    }

    /** How late request {@code k} is when sent at {@code now}; never negative. */
    public long lagNanos(long k, long now) {
        return Math.max(0, now - dueAt(k));
    }

    /** Whether every request has been due: the limit is reached or the duration is over. */
    public boolean finished(long sent, long now) {
        return sent >= limit || now >= stopAt;
    }
}
