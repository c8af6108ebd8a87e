package org.p2psip.servlet.accounting;

/**
 * A node's accounting counters at one moment, for its metrics.
 *
 * @param written       records the database has committed
 * @param dropped       records given up: the buffer was full, the database refused them, or the node stopped first
 * @param pending       records held in memory, waiting or being written
 * @param flushFailures flushes that failed (and were tried again)
 */
public record AccountingCounts(long written, long dropped, long pending, long flushFailures) {

    public AccountingCounts {
        if (written < 0 || dropped < 0 || pending < 0 || flushFailures < 0) {
            throw new IllegalArgumentException("counts cannot be negative");
        }
    }
}
