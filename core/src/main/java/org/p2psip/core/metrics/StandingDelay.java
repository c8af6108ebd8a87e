package org.p2psip.core.metrics;

import java.time.Duration;

/**
 * The delay a node's DHT operations cannot get below: the shortest
 * operation that completed in the last full interval. This is CoDel's
 * signal (Nichols &amp; Jacobson, "Controlling Queue Delay", 2012): while
 * the minimum over an interval stays above the target there is a standing
 * queue, not a burst that will drain; a few slow operations (a retry
 * after a crashed peer) do not move a minimum.
 *
 * <p>A node's overload gate adds it to the SIP queue's delay: the work a
 * REGISTER starts waits in the overlay, not in the SIP queue, so without
 * it a node keeps admitting requests while its DHT operations queue for
 * seconds, time out, and are retried into more load.
 *
 * <p>An interval in which nothing completed says nothing, and neither does
 * one that ended long ago. Thread-safe: operations complete on any thread.
 */
public final class StandingDelay {

    private final long intervalNanos;
    private boolean started;
    private long windowStart;
    private long windowMin = Long.MAX_VALUE;
    private long lastMin;
    private long lastEnd;

    /** @param interval how long each minimum is taken over (CoDel: 100 ms) */
    public StandingDelay(Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the interval must be positive, not " + interval);
        }
        this.intervalNanos = interval.toNanos();
    }

    /** An operation that took {@code elapsedNanos} completed at {@code nowNanos}. */
    public synchronized void completed(long elapsedNanos, long nowNanos) {
        roll(nowNanos);
        windowMin = Math.min(windowMin, Math.max(0, elapsedNanos));
    }

    /** The shortest operation of the last full interval, if it ended within an interval of {@code nowNanos}; else 0. */
    public synchronized long nanos(long nowNanos) {
        roll(nowNanos);
        return started && nowNanos - lastEnd <= intervalNanos ? lastMin : 0;
    }

    private void roll(long nowNanos) {
        if (!started) {
            started = true;
            windowStart = nowNanos;
            lastEnd = nowNanos - 2 * intervalNanos;
            return;
        }
        long sinceStart = nowNanos - windowStart;
        if (sinceStart < intervalNanos) {
            return;
        }
        // A window that ended more than an interval ago is stale; its successor then had no completions.
        boolean endedJustNow = sinceStart < 2 * intervalNanos;
        lastMin = endedJustNow && windowMin != Long.MAX_VALUE ? windowMin : 0;
        lastEnd = endedJustNow ? windowStart + intervalNanos : nowNanos;
        windowStart = endedJustNow ? windowStart + intervalNanos : nowNanos;
        windowMin = Long.MAX_VALUE;
    }
}
