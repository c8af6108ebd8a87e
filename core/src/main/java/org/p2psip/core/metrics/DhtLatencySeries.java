package org.p2psip.core.metrics;

import java.util.Objects;

/**
 * The latency histogram of one kind of DHT operation ending one way: one
 * labelled series of {@code p2psip_dht_operation_duration_seconds}.
 */
public record DhtLatencySeries(DhtOperation operation, DhtOutcome outcome, LatencySnapshot latency) {

    public DhtLatencySeries {
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(latency, "latency");
        if (!operation.outcomes().contains(outcome)) {
            throw new IllegalArgumentException(operation.label() + " cannot end in " + outcome.label());
        }
    }
}
