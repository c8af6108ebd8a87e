package org.p2psip.core.metrics;

/**
 * A quantile of a bucketed histogram estimated the way Prometheus's
 * {@code histogram_quantile} does: find the bucket the rank falls in and
 * interpolate linearly between its lower bound (the bucket below's upper
 * bound, 0 for the first) and its upper bound; a rank in the +Inf bucket
 * gets the highest finite bound, since nothing is known above it. Used
 * wherever a histogram is summed up for a person, so a status page, a
 * benchmark table and a Grafana panel over the same counts agree.
 */
public final class HistogramQuantile {

    private HistogramQuantile() {
    }

    /**
     * The {@code q} quantile, in the unit of {@code upperBounds}.
     *
     * @param upperBounds the buckets' inclusive upper bounds, ascending; the last may be +Inf
     * @param cumulative  observations at most each bound, never decreasing, as many as the bounds
     * @param q           between 0 and 1
     * @return the estimate, or 0 when nothing was observed
     */
    public static double estimate(double[] upperBounds, long[] cumulative, double q) {
        if (upperBounds.length != cumulative.length) {
            throw new IllegalArgumentException(upperBounds.length + " bounds but " + cumulative.length + " counts");
        }
        if (!(q >= 0 && q <= 1)) {
            throw new IllegalArgumentException("a quantile lies between 0 and 1, not " + q);
        }
        int n = cumulative.length;
        long total = n == 0 ? 0 : cumulative[n - 1];
        if (total == 0) {
            return 0;
        }
        double rank = q * total;
        double lowerBound = 0;
        long below = 0;
        for (int i = 0; i < n; i++) {
            if (cumulative[i] >= rank) {
                if (upperBounds[i] == Double.POSITIVE_INFINITY) {
                    return lowerBound;
                }
                long inBucket = cumulative[i] - below;
                return inBucket == 0 ? upperBounds[i]
                        : lowerBound + (upperBounds[i] - lowerBound) * (rank - below) / inBucket;
            }
            lowerBound = upperBounds[i];
            below = cumulative[i];
        }
        return lowerBound;
    }
}
