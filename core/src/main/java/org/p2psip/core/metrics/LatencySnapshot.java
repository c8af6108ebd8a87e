package org.p2psip.core.metrics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

/**
 * One reading of a {@link LatencyHistogram}, in the shape Prometheus
 * exposes a histogram: cumulative counts per upper bound
 * ({@link LatencyHistogram#UPPER_BOUNDS_NANOS}, then +Inf) and the sum of
 * every recorded duration.
 *
 * @param cumulativeCounts operations that took at most each bound, the last (+Inf) being all of them;
 *                         never decreasing
 * @param sumNanos         the recorded durations added up, in nanoseconds
 */
public record LatencySnapshot(List<Long> cumulativeCounts, long sumNanos) {

    /** Every bucket's upper bound in nanoseconds, +Inf last. */
    private static final double[] BOUNDS_NANOS = Stream.concat(
                    LatencyHistogram.UPPER_BOUNDS_NANOS.stream().map(Long::doubleValue),
                    Stream.of(Double.POSITIVE_INFINITY))
            .mapToDouble(Double::doubleValue).toArray();

    public LatencySnapshot {
        cumulativeCounts = List.copyOf(cumulativeCounts);
        int buckets = LatencyHistogram.UPPER_BOUNDS_NANOS.size() + 1;
        if (cumulativeCounts.size() != buckets) {
            throw new IllegalArgumentException("a snapshot has " + buckets + " buckets, not " + cumulativeCounts.size());
        }
        long previous = 0;
        for (long c : cumulativeCounts) {
            if (c < previous) {
                throw new IllegalArgumentException("cumulative counts must not decrease: " + cumulativeCounts);
            }
            previous = c;
        }
        if (sumNanos < 0) {
            throw new IllegalArgumentException("a sum of durations must not be negative, not " + sumNanos);
        }
    }

    /** Every operation recorded: the +Inf bucket. */
    public long count() {
        return cumulativeCounts.get(cumulativeCounts.size() - 1);
    }

    /** No operation recorded. */
    public static LatencySnapshot empty() {
        return new LatencySnapshot(Collections.nCopies(LatencyHistogram.UPPER_BOUNDS_NANOS.size() + 1, 0L), 0);
    }

    /** The recordings of both, as one histogram of the same buckets. */
    public LatencySnapshot plus(LatencySnapshot other) {
        List<Long> sum = new ArrayList<>(cumulativeCounts.size());
        for (int i = 0; i < cumulativeCounts.size(); i++) {
            sum.add(cumulativeCounts.get(i) + other.cumulativeCounts.get(i));
        }
        return new LatencySnapshot(sum, sumNanos + other.sumNanos);
    }

    /**
     * What was recorded after {@code before}, a reading of the same histogram
     * taken earlier. A bucket that went down (a reading of another histogram
     * by mistake) counts as nothing rather than as a negative count.
     */
    public LatencySnapshot minus(LatencySnapshot before) {
        List<Long> diff = new ArrayList<>(cumulativeCounts.size());
        long previous = 0;
        for (int i = 0; i < cumulativeCounts.size(); i++) {
            // Kept cumulative even where a bucket went down, so the result is a valid reading.
            previous = Math.max(previous, cumulativeCounts.get(i) - before.cumulativeCounts.get(i));
            diff.add(previous);
        }
        return new LatencySnapshot(diff, Math.max(0, sumNanos - before.sumNanos));
    }

    /** The {@code q} quantile in nanoseconds, estimated as {@link HistogramQuantile} does; 0 when empty. */
    public double quantileNanos(double q) {
        long[] counts = new long[cumulativeCounts.size()];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = cumulativeCounts.get(i);
        }
        return HistogramQuantile.estimate(BOUNDS_NANOS, counts, q);
    }
}
