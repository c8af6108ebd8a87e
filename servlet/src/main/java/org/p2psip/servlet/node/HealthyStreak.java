package org.p2psip.servlet.node;

/**
 * Whether the last {@code needed} operations in a row succeeded, each
 * within {@code boundNanos}: the sign that an overlay a node has just
 * joined carries its requests, which the number of requests run alone does
 * not give. A ring that is still handing ranges to its joiners answers
 * "not the owner" for seconds, and a loaded one answers late; either breaks
 * the streak.
 *
 * <p>Thread-safe: operations complete on the DHT's threads.
 */
final class HealthyStreak {

    private final int needed;
    private final long boundNanos;
    private int streak;

    HealthyStreak(int needed, long boundNanos) {
        if (needed < 1 || boundNanos < 1) {
            throw new IllegalArgumentException("a streak needs a positive length and bound");
        }
        this.needed = needed;
        this.boundNanos = boundNanos;
    }

    /** One operation ended: {@code ok} whether it succeeded, after {@code tookNanos}. */
    synchronized void record(boolean ok, long tookNanos) {
        streak = ok && tookNanos <= boundNanos ? streak + 1 : 0;
    }

    synchronized boolean reached() {
        return streak >= needed;
    }
}
