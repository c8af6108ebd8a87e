package org.p2psip.dht.chord;

import java.time.Instant;
import java.util.Objects;

/** A value as a node stores it: the bytes, the version its owner gave it, and when it lapses. */
public record StoredEntry(String key, byte[] value, long version, Instant expiresAt) {

    public StoredEntry {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }

    public boolean liveAt(Instant now) {
        return expiresAt.isAfter(now);
    }
}
