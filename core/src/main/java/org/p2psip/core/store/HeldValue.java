package org.p2psip.core.store;

import java.util.Objects;

/**
 * One value as a node holds it and keeps it on disk: the key, its bytes,
 * the version the backend gave the write that made it, and its absolute
 * expiry. What the backends call a version differs (chord's hybrid clock,
 * kademlia's coordinator versions, Hazelcast's flake ids) but in each a
 * higher version is a later write, which is all recovery needs to keep the
 * newest of several copies.
 *
 * @param expiresAtMillis epoch milliseconds; a value past it is never loaded again
 */
public record HeldValue(String key, byte[] value, long version, long expiresAtMillis) {

    public HeldValue {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        if (key.isEmpty()) {
            throw new IllegalArgumentException("a held value needs a key");
        }
    }

    /** Whether it is still live at {@code nowMillis}: expiry is exclusive, as in the DHT SPI. */
    public boolean liveAt(long nowMillis) {
        return expiresAtMillis > nowMillis;
    }
}
