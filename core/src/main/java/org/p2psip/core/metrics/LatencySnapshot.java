package org.p2psip.core.metrics;

import java.util.List;

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
}
