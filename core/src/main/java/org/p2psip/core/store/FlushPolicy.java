package org.p2psip.core.store;

import java.time.Duration;
import java.util.Objects;

/**
 * When writes buffered in memory go to their store: once {@code count}
 * have piled up, or once the oldest has waited {@code interval}, whichever
 * comes first, all of them in one batch. OpenSIPS's query buffering
 * ({@code query_buffer_size}, {@code query_flush_time}) is the model: a
 * database-bound proxy went from 1,700 to 3,000 calls/s by batching its
 * inserts. A count of 1 writes each change as soon as the writer is free.
 *
 * @param count    changes that start a flush, at least 1
 * @param interval the longest a change waits before a flush starts, positive
 */
public record FlushPolicy(int count, Duration interval) {

    /** 100 changes or 1 s. */
    public static final FlushPolicy DEFAULT = new FlushPolicy(100, Duration.ofSeconds(1));

    public FlushPolicy {
        Objects.requireNonNull(interval, "interval");
        if (count < 1) {
            throw new IllegalArgumentException("a flush count must be at least 1, not " + count);
        }
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("a flush interval must be positive, not " + interval.toMillis() + " ms");
        }
    }
}
