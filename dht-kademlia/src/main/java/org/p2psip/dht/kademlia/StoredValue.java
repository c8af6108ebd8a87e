package org.p2psip.dht.kademlia;

import java.util.Objects;

/**
 * One replica's copy of a key: the bytes, the version the coordinator gave
 * the write, and when it lapses. A removal is stored as a tombstone (a
 * version without a value) so that an older copy republished by a lagging
 * replica cannot bring the value back: replicas only ever move to a higher
 * version.
 *
 * @param expiresAtMillis absolute expiry on the node clock; a lapsed value is never returned
 * @param writeId         the writer's random id for the write that made this version, so a write retried
 *                        through another coordinator after a lost answer is recognised as already applied
 */
public record StoredValue(byte[] value, long version, long expiresAtMillis, boolean tombstone, long writeId) {

    public StoredValue {
        Objects.requireNonNull(value, "value");
        if (version <= 0) {
            throw new IllegalArgumentException("a stored version must be positive, not " + version);
        }
    }

    public boolean liveAt(long nowMillis) {
        return !tombstone && nowMillis < expiresAtMillis;
    }
}
