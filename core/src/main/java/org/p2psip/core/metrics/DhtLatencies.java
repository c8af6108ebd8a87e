package org.p2psip.core.metrics;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * A node's DHT-operation latencies: one {@link LatencyHistogram} for every
 * operation and each outcome it can have, all made up front so that
 * recording allocates nothing and takes no lock; and how many key
 * operations found their key owned by this node ({@link KeyOwnership}).
 *
 * <p>A snapshot lists every such pair, zero until observed, in a fixed
 * order: a scraper sees the same series from the first scrape on, and a
 * series never appears half-way through a measurement (Prometheus's advice
 * for label values known in advance).
 */
public final class DhtLatencies {

    private final Map<DhtOperation, Map<DhtOutcome, LatencyHistogram>> histograms = new EnumMap<>(DhtOperation.class);
    private final Map<KeyOwnership, LongAdder> byOwnership = new EnumMap<>(KeyOwnership.class);

    public DhtLatencies() {
        for (DhtOperation op : DhtOperation.values()) {
            Map<DhtOutcome, LatencyHistogram> byOutcome = new EnumMap<>(DhtOutcome.class);
            op.outcomes().forEach(o -> byOutcome.put(o, new LatencyHistogram()));
            histograms.put(op, byOutcome);
        }
        for (KeyOwnership o : KeyOwnership.values()) {
            byOwnership.put(o, new LongAdder());
        }
    }

    /** Counts one key operation (get, put or remove) by whether this node owned the key when it started. */
    public void countKey(KeyOwnership ownership) {
        byOwnership.get(ownership).increment();
    }

    /** Key operations so far by ownership, every value present, in declaration order. */
    public Map<KeyOwnership, Long> keyOwnership() {
        Map<KeyOwnership, Long> counts = new EnumMap<>(KeyOwnership.class);
        byOwnership.forEach((o, n) -> counts.put(o, n.sum()));
        return counts;
    }

    /**
     * Records one {@code operation} that ended as {@code outcome} after {@code nanos}.
     *
     * @throws IllegalArgumentException for an outcome the operation cannot have (a conflicting read)
     */
    public void record(DhtOperation operation, DhtOutcome outcome, long nanos) {
        LatencyHistogram h = histograms.get(operation).get(outcome);
        if (h == null) {
            throw new IllegalArgumentException(operation.label() + " cannot end in " + outcome.label());
        }
        h.record(nanos);
    }

    /** Every operation and outcome pair, operations then outcomes in declaration order. */
    public List<DhtLatencySeries> snapshot() {
        List<DhtLatencySeries> series = new ArrayList<>();
        histograms.forEach((op, byOutcome) -> byOutcome.forEach(
                (outcome, h) -> series.add(new DhtLatencySeries(op, outcome, h.snapshot()))));
        return series;
    }
}
