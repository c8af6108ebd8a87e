package org.p2psip.core.metrics;

import java.util.List;

/**
 * The DHT operations a node times, as the {@code operation} label names
 * them, each with the outcomes it can have: only the conditional writes
 * can lose their compare-and-set.
 */
public enum DhtOperation {

    GET("get", List.of(DhtOutcome.OK, DhtOutcome.ERROR)),
    PUT("put", List.of(DhtOutcome.OK, DhtOutcome.CONFLICT, DhtOutcome.ERROR)),
    REMOVE("remove", List.of(DhtOutcome.OK, DhtOutcome.CONFLICT, DhtOutcome.ERROR)),
    PLACEMENT("placement", List.of(DhtOutcome.OK, DhtOutcome.ERROR));

    private final String label;
    private final List<DhtOutcome> outcomes;

    DhtOperation(String label, List<DhtOutcome> outcomes) {
        this.label = label;
        this.outcomes = outcomes;
    }

    /** The value of the {@code operation} label. */
    public String label() {
        return label;
    }

    /** The outcomes this operation can end in, in label order. */
    public List<DhtOutcome> outcomes() {
        return outcomes;
    }
}
