package org.p2psip.loadtest.bench;

import java.util.Map;
import java.util.TreeMap;

import org.HdrHistogram.Histogram;

/**
 * What one lane measured. Owned by the lane's event loop while it runs;
 * read by the run only after the lane has finished.
 */
final class LaneStats {

    /** Highest latency recorded, in microseconds: an hour, far beyond any transaction timeout. */
    static final long HIGHEST_MICROS = 3_600_000_000L;

    final Histogram latencyMicros = new Histogram(HIGHEST_MICROS, 3);
    final Map<String, Long> failures = new TreeMap<>();
    long attempted;
    long succeeded;
    long failed;
    long retransmissions;
    /** Flows that got 503 with Retry-After and sent their request again after it. */
    long retriedAfter503;
    long strays;
    long maxLagNanos;
    long firstSendAt = Long.MAX_VALUE;
    long lastDoneAt = Long.MIN_VALUE;

    void fail(String reason) {
        failed++;
        failures.merge(reason, 1L, Long::sum);
    }

    void succeed(long latencyNanos) {
        succeeded++;
        latencyMicros.recordValue(Math.min(HIGHEST_MICROS, Math.max(0, latencyNanos / 1000)));
    }
}
