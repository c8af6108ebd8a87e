package org.p2psip.loadtest.scale;

/**
 * What the nodes' DHT operations did during one search step, summed over
 * every node of the cluster: read from the difference of their
 * {@code p2psip_dht_operation_duration_seconds} histograms scraped before
 * and after the step ({@link DhtLatencyHistogram}).
 *
 * @param count     operations completed in the step (every kind and outcome)
 * @param errors    of those, operations that failed (outcome {@code error}; a lost compare-and-set is not one)
 * @param p50Millis median duration, interpolated within its bucket as Prometheus's {@code histogram_quantile}
 * @param p99Millis 99th percentile, likewise
 */
public record DhtOperations(long count, long errors, double p50Millis, double p99Millis) {

    public DhtOperations {
        if (count < 0 || errors < 0 || errors > count) {
            throw new IllegalArgumentException("operations " + count + ", errors " + errors);
        }
        if (p50Millis < 0 || p99Millis < p50Millis) {
            throw new IllegalArgumentException("p50 " + p50Millis + " ms, p99 " + p99Millis + " ms");
        }
    }
}
