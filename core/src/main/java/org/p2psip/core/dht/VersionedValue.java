package org.p2psip.core.dht;

import java.time.Instant;
import java.util.Objects;

/**
 * A stored value with the version a conditional write must name and the
 * instant it lapses.
 */
public record VersionedValue(byte[] value, long version, Instant expiresAt) {

    public VersionedValue {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(expiresAt, "expiresAt");
        if (version <= Dht.ABSENT) {
            throw new IllegalArgumentException("a stored version must be positive, not " + version);
        }
    }
}
