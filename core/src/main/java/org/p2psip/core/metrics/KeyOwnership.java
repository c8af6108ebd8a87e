package org.p2psip.core.metrics;

/**
 * Whether a node owned the key of a DHT operation when it started it
 * ({@code Dht.ownedRanges()}): the {@code placement} label.
 */
public enum KeyOwnership {

    /** The node owned the key: it coordinated the operation without handing it on. */
    LOCAL("local"),
    /** Another node owned it: the operation went there first. */
    REMOTE("remote"),
    /** The backend cannot tell what it owns. */
    UNKNOWN("unknown");

    private final String label;

    KeyOwnership(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
