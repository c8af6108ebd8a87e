package org.p2psip.core.overlay;

import java.time.Duration;

/**
 * How long a node pauses between two steps of bulk background work — the
 * pages of a range handed over after a join, the batches of a republish —
 * so that it cannot starve the foreground: as long as the node's own loop
 * has lately stayed behind ({@link SchedulingLag}), up to a cap, and not at
 * all while it keeps up. The loop then works off about as much queued
 * foreground work as it was behind before the next step adds its own, the
 * delay-based back-off of LEDBAT (RFC 6817) measured on the node's own
 * queue rather than the path's. Pure: time is an argument.
 */
public final class HandOverPacing {

    /** Never pauses: for nodes that measure no lag. */
    public static final HandOverPacing NONE = new HandOverPacing(null, Duration.ZERO, Duration.ZERO);

    private final SchedulingLag lag;
    private final long recentNanos;
    private final long capNanos;

    /**
     * @param lag    this node's own lag
     * @param recent how long ago a spell of lag may have ended and still slow the hand-over
     * @param cap    the longest pause between two steps
     */
    public HandOverPacing(SchedulingLag lag, Duration recent, Duration cap) {
        if (recent.isNegative() || cap.isNegative()) {
            throw new IllegalArgumentException("pacing spans cannot be negative: " + recent + ", " + cap);
        }
        this.lag = lag;
        this.recentNanos = recent.toNanos();
        this.capNanos = cap.toNanos();
    }

    /** The pause before the next step, at {@code nowNanos}; zero while the node keeps up. */
    public Duration pauseAt(long nowNanos) {
        if (lag == null) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.min(capNanos, lag.recentLagNanos(nowNanos, recentNanos)));
    }
}
