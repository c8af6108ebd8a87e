package org.p2psip.core.overlay;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * How far behind a node's own event loop has been: the spans during which
 * a tick it scheduled was due but had not yet run. This is the
 * "event-loop delay" a node measures of itself (the delay monitor of Node's
 * {@code perf_hooks}, Akka's and Cassandra's self-pause accounting in their
 * phi-accrual detectors, Hayashibara et al. 2004): a peer's timeout that
 * overlapped such a span may be this node's queue and not the peer's
 * silence. Pure: the caller passes the monotonic time, in nanoseconds;
 * {@link LagMonitor} drives it on a real or virtual executor. Thread-safe,
 * since the loop that ticks and the code that asks may differ.
 *
 * <p>A tick late by no more than the tolerance counts as on time, so the
 * ordinary jitter of a busy loop is not lag. Spans older than the horizon
 * are forgotten.
 */
public final class SchedulingLag {

    /** A span during which this node's loop was behind. */
    private record Behind(long fromNanos, long toNanos) {
    }

    private final long toleranceNanos;
    private final long horizonNanos;
    private final Deque<Behind> spans = new ArrayDeque<>();
    private boolean pending;
    private long dueNanos;

    /**
     * @param toleranceNanos lateness that still counts as on time
     * @param horizonNanos   how long a span of lag is remembered
     */
    public SchedulingLag(long toleranceNanos, long horizonNanos) {
        if (toleranceNanos < 0 || horizonNanos <= 0) {
            throw new IllegalArgumentException("tolerance must not be negative and the horizon must be positive: "
                    + toleranceNanos + ", " + horizonNanos);
        }
        this.toleranceNanos = toleranceNanos;
        this.horizonNanos = horizonNanos;
    }

    /** A tick is now scheduled to run at {@code atNanos}. */
    public synchronized void due(long atNanos) {
        pending = true;
        dueNanos = atNanos;
    }

    /** The tick scheduled last ran at {@code nowNanos}. */
    public synchronized void ran(long nowNanos) {
        if (pending && nowNanos - dueNanos > toleranceNanos) {
            spans.addLast(new Behind(dueNanos, nowNanos));
        }
        pending = false;
        while (!spans.isEmpty() && nowNanos - spans.peekFirst().toNanos() > horizonNanos) {
            spans.removeFirst();
        }
    }

    /**
     * How much of {@code [fromNanos, toNanos]} this node's loop spent behind:
     * the spans it recorded, and the tick overdue now, if any, up to
     * {@code toNanos}.
     */
    public synchronized long behindNanos(long fromNanos, long toNanos) {
        long behind = 0;
        for (Behind b : spans) {
            behind += overlap(b.fromNanos(), b.toNanos(), fromNanos, toNanos);
        }
        if (pending && toNanos - dueNanos > toleranceNanos) {
            behind += overlap(dueNanos, toNanos, fromNanos, toNanos);
        }
        return behind;
    }

    /**
     * The longest this node's loop has stayed behind in a span that ended
     * within {@code withinNanos} before {@code nowNanos} (at most the
     * horizon), the tick overdue now included; zero when it kept up.
     */
    public synchronized long recentLagNanos(long nowNanos, long withinNanos) {
        long worst = pending && nowNanos - dueNanos > toleranceNanos ? nowNanos - dueNanos : 0;
        for (Behind b : spans) {
            if (nowNanos - b.toNanos() <= Math.min(withinNanos, horizonNanos)) {
                worst = Math.max(worst, b.toNanos() - b.fromNanos());
            }
        }
        return worst;
    }

    private static long overlap(long aFrom, long aTo, long bFrom, long bTo) {
        return Math.max(0, Math.min(aTo, bTo) - Math.max(aFrom, bFrom));
    }
}
