package org.p2psip.dht.hazelcast;

import java.time.Instant;

import org.p2psip.core.dht.VersionedValue;

/**
 * What the bindings map holds per key: the caller's bytes, the version a
 * conditional write must name, and the absolute expiry in epoch millis.
 * Expiry is kept in the value (not only as Hazelcast's TTL) because Hazelcast
 * evicts lazily and with its own clock; every read and every conditional
 * write decides liveness from this field and the caller's clock.
 */
record StoredValue(byte[] value, long version, long expiresAtMillis) implements Wire {

    /** Whether the value is still live at {@code nowMillis}: expiry is exclusive, as in the SPI. */
    boolean liveAt(long nowMillis) {
        return expiresAtMillis > nowMillis;
    }

    VersionedValue toVersionedValue() {
        return new VersionedValue(value, version, Instant.ofEpochMilli(expiresAtMillis));
    }
}
