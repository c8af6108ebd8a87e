package org.p2psip.loadtest.scale;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.p2psip.core.metrics.HistogramQuantile;

/**
 * The nodes' DHT-operation latency histogram
 * ({@code p2psip_dht_operation_duration_seconds}, Prometheus text format
 * 0.0.4), every operation kind and outcome of every node added together:
 * cumulative counts by bucket bound, and the count of failed operations;
 * beside it, the key operations the nodes started as owners of the key and
 * not ({@value #KEY_OPERATIONS}). Two scrapes subtracted give what happened
 * in between.
 */
final class DhtLatencyHistogram {

    static final String FAMILY = "p2psip_dht_operation_duration_seconds";
    private static final Pattern BUCKET = Pattern.compile(
            "^" + FAMILY + "_bucket\\{([^}]*)\\}\\s+(\\S+)(?:\\s+\\S+)?$");
    private static final Pattern LE = Pattern.compile("(?:^|,)le=\"([^\"]+)\"");
    private static final Pattern ERROR = Pattern.compile("(?:^|,)outcome=\"error\"");
    static final String KEY_OPERATIONS = "p2psip_dht_key_operations_total";
    private static final Pattern KEYS = Pattern.compile(
            "^" + KEY_OPERATIONS + "\\{placement=\"(local|remote)\"\\}\\s+(\\S+)(?:\\s+\\S+)?$");

    /** Cumulative counts by upper bound in seconds; +Inf as {@link Double#POSITIVE_INFINITY}. */
    private final TreeMap<Double, Long> cumulative;
    private final long errors;
    private final long local;
    private final long remote;

    private DhtLatencyHistogram(TreeMap<Double, Long> cumulative, long errors, long local, long remote) {
        this.cumulative = cumulative;
        this.errors = errors;
        this.local = local;
        this.remote = remote;
    }

    static DhtLatencyHistogram empty() {
        return new DhtLatencyHistogram(new TreeMap<>(), 0, 0, 0);
    }

    /** The family's buckets in one scrape; lines of other families are ignored. */
    static DhtLatencyHistogram parse(String exposition) {
        TreeMap<Double, Long> counts = new TreeMap<>();
        long errors = 0;
        long local = 0;
        long remote = 0;
        for (String line : exposition.split("\n")) {
            Matcher k = KEYS.matcher(line.strip());
            if (k.matches()) {
                long n = (long) Double.parseDouble(k.group(2));
                if (k.group(1).equals("local")) {
                    local += n;
                } else {
                    remote += n;
                }
                continue;
            }
            Matcher m = BUCKET.matcher(line.strip());
            if (!m.matches()) {
                continue;
            }
            Matcher le = LE.matcher(m.group(1));
            if (!le.find()) {
                continue;
            }
            double bound = bound(le.group(1));
            long count = (long) Double.parseDouble(m.group(2));
            counts.merge(bound, count, Long::sum);
            if (bound == Double.POSITIVE_INFINITY && ERROR.matcher(m.group(1)).find()) {
                errors += count;
            }
        }
        return new DhtLatencyHistogram(counts, errors, local, remote);
    }

    private static double bound(String le) {
        return "+Inf".equals(le) ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
    }

    DhtLatencyHistogram plus(DhtLatencyHistogram other) {
        TreeMap<Double, Long> sum = new TreeMap<>(cumulative);
        other.cumulative.forEach((b, c) -> sum.merge(b, c, Long::sum));
        return new DhtLatencyHistogram(sum, errors + other.errors, local + other.local, remote + other.remote);
    }

    /** What was added since {@code before} (a counter that went down, a restarted node, counts as nothing). */
    DhtLatencyHistogram minus(DhtLatencyHistogram before) {
        TreeMap<Double, Long> diff = new TreeMap<>();
        cumulative.forEach((b, c) -> diff.put(b, Math.max(0, c - before.cumulative.getOrDefault(b, 0L))));
        return new DhtLatencyHistogram(diff, Math.max(0, errors - before.errors), Math.max(0, local - before.local),
                Math.max(0, remote - before.remote));
    }

    long count() {
        Long all = cumulative.get(Double.POSITIVE_INFINITY);
        return all == null ? 0 : all;
    }

    /** The operations summarised; empty when there were none. */
    Optional<DhtOperations> summary() {
        long n = count();
        if (n == 0) {
            return Optional.empty();
        }
        return Optional.of(new DhtOperations(n, Math.min(errors, n), quantile(0.5) * 1000, quantile(0.99) * 1000,
                local, remote));
    }

    /** The {@code q} quantile in seconds, as Prometheus's {@code histogram_quantile} estimates it. */
    double quantile(double q) {
        double[] bounds = new double[cumulative.size()];
        long[] counts = new long[cumulative.size()];
        int i = 0;
        for (Map.Entry<Double, Long> e : cumulative.entrySet()) {
            bounds[i] = e.getKey();
            counts[i++] = e.getValue();
        }
        return HistogramQuantile.estimate(bounds, counts, q);
    }
}
