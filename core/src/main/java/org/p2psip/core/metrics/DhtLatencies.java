package org.p2psip.core.metrics;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A node's DHT-operation latencies: one {@link LatencyHistogram} for every
 * operation and each outcome it can have, all made up front so that
 * recording allocates nothing and takes no lock.
 *
 * <p>A snapshot lists every such pair, zero until observed, in a fixed
 * order: a scraper sees the same series from the first scrape on, and a
 * series never appears half-way through a measurement (Prometheus's advice
 * for label values known in advance).
 */
public final class DhtLatencies {

    private final Map<DhtOperation, Map<DhtOutcome, LatencyHistogram>> histograms = new EnumMap<>(DhtOperation.class);

    public DhtLatencies() {
        for (DhtOperation op : DhtOperation.values()) {
            Map<DhtOutcome, LatencyHistogram> byOutcome = new EnumMap<>(DhtOutcome.class);
            op.outcomes().forEach(o -> byOutcome.put(o, new LatencyHistogram()));
            histograms.put(op, byOutcome);
        }
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
