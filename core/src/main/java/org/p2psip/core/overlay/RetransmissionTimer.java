package org.p2psip.core.overlay;

/**
 * When to resend a datagram request to one peer: the retransmission
 * timeout of RFC 6298 §2, from the round trips of that peer's answers.
 *
 * <ul>
 *   <li>Only a request answered without a resend gives a sample (Karn's
 *       algorithm, §3): an answer to a resent request may answer either
 *       copy.</li>
 *   <li>The first sample sets SRTT to it and RTTVAR to half of it; later
 *       ones move SRTT by 1/8 and RTTVAR by 1/4 of the difference (§2.2,
 *       §2.3). The timeout is SRTT + 4·RTTVAR.</li>
 *   <li>Each expiry doubles the timeout (§5.5) until the next sample.</li>
 *   <li>The timeout stays between a floor and a ceiling (§2.4, §2.5).</li>
 * </ul>
 *
 * <p>Why it matters: a fixed, short first resend is right on a quiet
 * network, but on a busy node an answer waits in queues for longer than
 * that, every request is sent twice or more, and the copies are the load
 * that keeps the queues long. A cold four-node kademlia cluster given 200
 * REGISTER/s went from p50 3–9 s (with a fixed 150 ms) to p50 0.1 s (with
 * the resend at 500 ms, and with this timer); it keeps the short resend
 * where round trips are short and takes the long one where they are not.
 *
 * <p>Pure state, times in nanoseconds as arguments; thread-safe, since
 * requests start on their callers' threads and answers arrive on the
 * transport's.
 */
public final class RetransmissionTimer {

    private final long floorNanos;
    private final long ceilingNanos;
    private long smoothed = -1;
    private long variation;
    private long timeout;

    /**
     * @param initialNanos the timeout before any sample (§2.1)
     * @param floorNanos   the shortest timeout
     * @param ceilingNanos the longest timeout, backed off or not
     */
    public RetransmissionTimer(long initialNanos, long floorNanos, long ceilingNanos) {
        if (floorNanos <= 0 || ceilingNanos < floorNanos) {
            throw new IllegalArgumentException("need 0 < floor <= ceiling, not " + floorNanos + " and "
                    + ceilingNanos);
        }
        this.floorNanos = floorNanos;
        this.ceilingNanos = ceilingNanos;
        this.timeout = clamp(initialNanos);
    }

    /** How long to wait for an answer before the first resend. */
    public synchronized long timeoutNanos() {
        return timeout;
    }

    /** A request sent once was answered after {@code roundTripNanos}. */
    public synchronized void answered(long roundTripNanos) {
        long r = Math.max(0, roundTripNanos);
        if (smoothed < 0) {
            smoothed = r;
            variation = r / 2;
        } else {
            variation = (3 * variation + Math.abs(smoothed - r)) / 4;
            smoothed = (7 * smoothed + r) / 8;
        }
        timeout = clamp(smoothed + 4 * variation);
    }

    /** A request went unanswered for the timeout and is resent: back off. */
    public synchronized void expired() {
        // The timeout never exceeds the ceiling, so doubling it cannot overflow.
        timeout = clamp(2 * timeout);
    }

    private long clamp(long nanos) {
        return Math.min(ceilingNanos, Math.max(floorNanos, nanos));
    }
}
