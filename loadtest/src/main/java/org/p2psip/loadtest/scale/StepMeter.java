package org.p2psip.loadtest.scale;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import org.p2psip.loadtest.bench.LoadReport;
import org.p2psip.loadtest.bench.StepListener;

/**
 * Something measured over each step of a max-rate search: sampled as a
 * step starts and again once it has been judged (its drain included, so
 * the step's slowest work is in), and the difference kept under the step's
 * index. The scale benchmark meters the nodes' DHT-operation histograms
 * ({@link DhtLatencyHistogram}) and the processes' CPU time
 * ({@link CpuCost}) this way.
 *
 * @param <S> what a sample reads
 * @param <T> what a step's two samples give
 */
final class StepMeter<S, T> implements StepListener {

    /** What two samples of one step give, if anything. */
    @FunctionalInterface
    interface Difference<S, T> {
        Optional<T> between(S before, S after, LoadReport step);
    }

    private final Supplier<Optional<S>> sampler;
    private final Difference<S, T> difference;
    private final Map<Integer, T> byStep = new HashMap<>();
    private Optional<S> before = Optional.empty();

    /** @param sampler reads a sample now; empty when it cannot */
    StepMeter(Supplier<Optional<S>> sampler, Difference<S, T> difference) {
        this.sampler = sampler;
        this.difference = difference;
    }

    /** The nodes' DHT operations in each step, from their {@code --metrics}. */
    static StepMeter<DhtLatencyHistogram, DhtOperations> dhtOperations(NodeMetricsScrape scrape) {
        return new StepMeter<>(scrape::scrape, (before, after, step) -> after.minus(before).summary());
    }

    /** What each step cost in CPU, per 1,000 flows it sent. */
    static StepMeter<CpuCost.Sample, CpuCost> cpu(Supplier<Optional<CpuCost.Sample>> sampler) {
        return new StepMeter<>(sampler, (before, after, step) -> CpuCost.between(before, after, step.attempted()));
    }

    @Override
    public void starting(int index, double rate) {
        before = sampler.get();
    }

    @Override
    public void finished(int index, LoadReport report, boolean held) {
        Optional<S> after = sampler.get();
        if (before.isPresent() && after.isPresent()) {
            difference.between(before.get(), after.get(), report).ifPresent(t -> byStep.put(index, t));
        }
        before = Optional.empty();
    }

    /** Step {@code index}'s measure; empty when a sample failed or the step gave none. */
    Optional<T> of(int index) {
        return Optional.ofNullable(byStep.get(index));
    }
}
