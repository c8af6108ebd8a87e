package org.p2psip.core.metrics;

/**
 * How a timed DHT operation ended, as the {@code outcome} label names it. A
 * lost compare-and-set is a {@link #CONFLICT}, not an {@link #ERROR}: it is
 * the SPI working as promised, and a caller retries it on fresh data.
 */
public enum DhtOutcome {

    /** Completed normally; for a conditional write, completed {@code true}. */
    OK("ok"),
    /** A conditional write completed {@code false}: the version did not match. */
    CONFLICT("conflict"),
    /** Completed exceptionally (timeout, unreachable peers, closed handle, ...). */
    ERROR("error");

    private final String label;

    DhtOutcome(String label) {
        this.label = label;
    }

    /** The value of the {@code outcome} label. */
    public String label() {
        return label;
    }
}
