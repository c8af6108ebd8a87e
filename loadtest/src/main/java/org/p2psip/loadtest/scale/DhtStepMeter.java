package org.p2psip.loadtest.scale;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import org.p2psip.loadtest.bench.LoadReport;
import org.p2psip.loadtest.bench.StepListener;

/**
 * The nodes' DHT operations over each step of a max-rate search: their
 * histograms scraped as a step starts and again once it has been judged
 * (its drain included, so the step's slowest operations are in).
 */
final class DhtStepMeter implements StepListener {

    private final NodeMetricsScrape scrape;
    private final Map<Integer, DhtOperations> byStep = new HashMap<>();
    private Optional<DhtLatencyHistogram> before = Optional.empty();

    DhtStepMeter(NodeMetricsScrape scrape) {
        this.scrape = scrape;
    }

    @Override
    public void starting(int index, double rate) {
        before = scrape.scrape();
    }

    @Override
    public void finished(int index, LoadReport report, boolean held) {
        Optional<DhtLatencyHistogram> after = scrape.scrape();
        if (before.isPresent() && after.isPresent()) {
            after.get().minus(before.get()).summary().ifPresent(ops -> byStep.put(index, ops));
        }
        before = Optional.empty();
    }

    /** Step {@code index}'s operations; empty when a scrape failed or the step ran none. */
    Optional<DhtOperations> of(int index) {
        return Optional.ofNullable(byStep.get(index));
    }
}
