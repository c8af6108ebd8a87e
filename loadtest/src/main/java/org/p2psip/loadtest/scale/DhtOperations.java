package org.p2psip.loadtest.scale;

import java.util.Optional;

/**
 * What the nodes' DHT operations did during one search step, summed over
 * every node of the cluster: read from the difference of their
 * {@code p2psip_dht_operation_duration_seconds} histograms scraped before
 * and after the step ({@link DhtLatencyHistogram}), with their key
 * operations by placement.
 *
 * @param count     operations completed in the step (every kind and outcome)
 * @param errors    of those, operations that failed (outcome {@code error}; a lost compare-and-set is not one)
 * @param p50Millis median duration, interpolated within its bucket as Prometheus's {@code histogram_quantile}
 * @param p99Millis 99th percentile, likewise
 * @param local     gets, puts and removes started on the node that owned the key
 *                  ({@code p2psip_dht_key_operations_total{placement="local"}})
 * @param remote    those started on a node that did not
 */
public record DhtOperations(long count, long errors, double p50Millis, double p99Millis, long local, long remote) {

    public DhtOperations {
        if (local < 0 || remote < 0) {
            throw new IllegalArgumentException("local " + local + ", remote " + remote);
        }
        if (count < 0 || errors < 0 || errors > count) {
            throw new IllegalArgumentException("operations " + count + ", errors " + errors);
        }
        if (p50Millis < 0 || p99Millis < p50Millis) {
            throw new IllegalArgumentException("p50 " + p50Millis + " ms, p99 " + p99Millis + " ms");
        }
    }

    /** The share of key operations that were local, when the nodes told either count. */
    public Optional<Double> localShare() {
        long all = local + remote;
        return all == 0 ? Optional.empty() : Optional.of((double) local / all);
    }
}
