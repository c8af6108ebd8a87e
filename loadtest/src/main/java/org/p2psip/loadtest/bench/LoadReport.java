package org.p2psip.loadtest.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import org.HdrHistogram.Histogram;

/**
 * What one load run measured.
 *
 * @param scenario        the scenario's label
 * @param transport       "udp" or "tcp"
 * @param target          host:port
 * @param offeredRate     flows started per second as asked
 * @param achievedRate    successful flows per second, over the time from the first send to the last answer
 * @param attempted       flows due (sent, or refused by the in-flight limit)
 * @param succeeded       flows that succeeded
 * @param failed          flows that failed, for any reason
 * @param failures        failures by reason: a status code ("404"), "timeout" (Timer B/F), "unfinished"
 *                        (still open at the end of the drain), "in-flight-limit", "connection closed"
 * @param retransmissions requests sent again by Timers A/E
 * @param elapsedSeconds  first send to last answer
 * @param p50Millis       median latency of successful flows
 * @param p90Millis       90th percentile
 * @param p99Millis       99th percentile
 * @param p999Millis      99.9th percentile
 * @param maxMillis       highest latency
 * @param meanMillis      mean latency
 * @param maxLagMillis    how late the generator sent its most delayed request; a large value means the
 *                        generator, not the target, limited the rate
 * @param retriedAfter503 flows that got 503 with Retry-After and sent their request again after it
 *                        ({@link LoadSpec#honourRetryAfter}); a second 503 counts as a failure
 */
public record LoadReport(String scenario, String transport, String target, double offeredRate, double achievedRate,
                         long attempted, long succeeded, long failed, Map<String, Long> failures, long retransmissions,
                         double elapsedSeconds, double p50Millis, double p90Millis, double p99Millis,
                         double p999Millis, double maxMillis, double meanMillis, double maxLagMillis,
                         long retriedAfter503) {

    public LoadReport {
        failures = Map.copyOf(failures);
    }

    /** Successful flows over attempted ones; 1 when none was attempted. */
    public double successRatio() {
        return attempted == 0 ? 1 : (double) succeeded / attempted;
    }

    /** Merges what the lanes measured. */
    static LoadReport of(LoadSpec spec, double offeredRate, List<LaneStats> lanes) {
        Histogram h = new Histogram(LaneStats.HIGHEST_MICROS, 3);
        Map<String, Long> failures = new TreeMap<>();
        long attempted = 0;
        long succeeded = 0;
        long failed = 0;
        long retransmissions = 0;
        long retried = 0;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        long lag = 0;
        for (LaneStats s : lanes) {
            h.add(s.latencyMicros);
            s.failures.forEach((k, v) -> failures.merge(k, v, Long::sum));
            attempted += s.attempted;
            succeeded += s.succeeded;
            failed += s.failed;
            retransmissions += s.retransmissions;
            retried += s.retriedAfter503;
            first = Math.min(first, s.firstSendAt);
            last = Math.max(last, s.lastDoneAt);
            lag = Math.max(lag, s.maxLagNanos);
        }
        double window = last > first ? (last - first) / 1e9 : 0;
        // Never shorter than the sending schedule itself: a single fast answer is not a rate.
        double elapsed = Math.max(window, attempted / offeredRate);
        double achieved = elapsed > 0 ? succeeded / elapsed : 0;
        boolean any = h.getTotalCount() > 0;
        return new LoadReport(spec.scenario().label(), spec.transport().label(), spec.target().toString(), offeredRate,
                achieved, attempted, succeeded, failed, failures, retransmissions, window,
                any ? millis(h.getValueAtPercentile(50)) : 0, any ? millis(h.getValueAtPercentile(90)) : 0,
                any ? millis(h.getValueAtPercentile(99)) : 0, any ? millis(h.getValueAtPercentile(99.9)) : 0,
                any ? millis(h.getMaxValue()) : 0, any ? h.getMean() / 1000.0 : 0, lag / 1e6, retried);
    }

    private static double millis(long micros) {
        return micros / 1000.0;
    }

    /** The one-line summary. */
    public String summary() {
        String fails = failures.isEmpty() ? "none" : failures.entrySet().stream()
                .map(e -> e.getKey() + " x" + e.getValue()).collect(Collectors.joining(", "));
        return String.format(Locale.ROOT,
                "%s %s %s: %.0f/s offered, %.1f/s achieved, %d/%d ok (%.3f%%), latency ms p50 %.2f p90 %.2f "
                        + "p99 %.2f max %.2f, failures: %s, retransmissions %d",
                scenario, transport, target, offeredRate, achievedRate, succeeded, attempted, 100 * successRatio(),
                p50Millis, p90Millis, p99Millis, maxMillis, fails, retransmissions)
                + (retriedAfter503 > 0 ? ", retried after 503 " + retriedAfter503 : "");
    }

    /** One JSON object. */
    public String toJson() {
        return json(new JsonWriter()).toString();
    }

    JsonWriter json(JsonWriter w) {
        return w.beginObject()
                .field("scenario", scenario).field("transport", transport).field("target", target)
                .field("offered_rate", offeredRate).field("achieved_rate", achievedRate)
                .field("attempted", attempted).field("succeeded", succeeded).field("failed", failed)
                .field("success_ratio", successRatio()).field("failures", new TreeMap<>(failures))
                .field("retransmissions", retransmissions).field("retried_after_503", retriedAfter503).field("elapsed_seconds", elapsedSeconds)
                .name("latency_ms").beginObject()
                .field("p50", p50Millis).field("p90", p90Millis).field("p99", p99Millis).field("p99.9", p999Millis)
                .field("max", maxMillis).field("mean", meanMillis).endObject()
                .field("max_send_lag_ms", maxLagMillis)
                .endObject();
    }
}
