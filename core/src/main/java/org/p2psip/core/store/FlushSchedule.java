package org.p2psip.core.store;

import java.util.Objects;


/**
 * When a write-behind writer flushes (the DHT values of a data directory,
 * {@link WriteBehindValues}; the accounting records), as a pure
 * function of how many records wait, since when, and the time now (all in
 * {@link System#nanoTime} units, passed in so the decisions can be tested
 * on a manual clock): as soon as {@code count} records wait or the oldest
 * has waited the policy's {@code interval}, whichever comes first
 * ({@link FlushPolicy}, OpenSIPS's {@code query_buffer_size} and
 * {@code query_flush_time}). A flush takes every waiting record, up to
 * {@link #batchLimit} in one transaction, so a writer that fell behind (the
 * database was away) catches up in large batches rather than one flush
 * count at a time.
 *
 * @param policy the count and interval that start a flush
 */
public record FlushSchedule(FlushPolicy policy) {

    /** No record waits: the writer sleeps until one comes. */
    public static final long IDLE = Long.MAX_VALUE;
    /**
     * The most records one transaction takes when more wait. A thousand
     * merges take PostgreSQL some tens of milliseconds, short enough for a
     * backlog to drain in steps and for one failed batch to cost little.
     */
    private static final int MIN_BATCH_LIMIT = 1_000;

    public FlushSchedule {
        Objects.requireNonNull(policy, "policy");
    }

    /**
     * Nanoseconds to wait before the next flush: 0 to flush now, {@link #IDLE}
     * when nothing waits.
     *
     * @param pending     records waiting
     * @param oldestNanos when the oldest of them was taken up
     * @param nowNanos    the time now
     */
    public long nanosToWait(int pending, long oldestNanos, long nowNanos) {
        if (pending <= 0) {
            return IDLE;
        }
        if (pending >= policy.count()) {
            return 0;
        }
        long waited = nowNanos - oldestNanos;
        return Math.max(0, policy.interval().toNanos() - waited);
    }

    /**
     * Whether the arrival that made {@code waiting} records wait should wake
     * a writer sleeping on {@link #nanosToWait}: only when its decision
     * changes, at the first record (it slept {@link #IDLE}) and when the
     * flush count is reached. In between it sleeps out the interval; a
     * wake-up per record costs the writer more than the write.
     */
    public boolean wakesWriter(int waiting) {
        return waiting == 1 || waiting == policy.count();
    }

    /** The most records one flush writes in one transaction: the flush count, and at least {@value #MIN_BATCH_LIMIT}. */
    public int batchLimit() {
        return Math.max(policy.count(), MIN_BATCH_LIMIT);
    }
}
