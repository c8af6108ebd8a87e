package org.p2psip.dht.chord;

import java.time.Instant;

/**
 * Hands out versions that are never reused: a hybrid logical clock (the
 * millisecond, shifted, or one past the last value handed out, whichever is
 * larger) in the high bits, and ten bits of the node's id in the low bits,
 * so two owners of one key at different times cannot mint the same version
 * even if their clocks disagree. Each version also exceeds the version it
 * replaces, so replicas can keep "newest wins".
 */
public final class VersionClock {

    private static final int SALT_BITS = 10;
    private static final int COUNTER_BITS = 10;

    private final long salt;
    private long last;

    public VersionClock(long nodeSalt) {
        this.salt = nodeSalt & ((1L << SALT_BITS) - 1);
    }

    /** A fresh version greater than {@code replacing}. */
    public long next(Instant now, long replacing) {
        long fromTime = now.toEpochMilli() << COUNTER_BITS;
        long fromReplaced = (replacing >>> SALT_BITS) + 1;
        last = Math.max(Math.max(last + 1, fromTime), fromReplaced);
        return (last << SALT_BITS) | salt;
    }
}
