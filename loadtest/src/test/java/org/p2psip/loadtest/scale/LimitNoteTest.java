package org.p2psip.loadtest.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.p2psip.loadtest.bench.LoadReport;
import org.p2psip.loadtest.bench.MaxRateReport;

/**
 * The note on what stopped a search names the failed step just above the
 * max rate; a short step is not failed for the answers' tail alone.
 */
class LimitNoteTest {

    private static MaxRateReport.SearchStep step(double rate, boolean held, double ok, Map<String, Long> failures) {
        long attempted = 1000;
        long succeeded = Math.round(ok * attempted);
        return new MaxRateReport.SearchStep(new LoadReport("register", "udp", "127.0.0.1:5060", rate, rate * ok,
                attempted, succeeded, attempted - succeeded, failures, 0, 1, 1, 2, 250, 300, 400, 5, 0, 0), held);
    }

    @Test
    void namesTheLowestFailedRateAboveTheBest() {
        MaxRateReport m = new MaxRateReport(List.of(
                step(1000, true, 1, Map.of()),
                step(1600, false, 0.5, Map.of("timeout", 500L)),
                step(1300, false, 0.99, Map.of("503", 10L)),
                step(1150, true, 1, Map.of())), 1150, null, "converged");
        assertEquals("at 1300/s: 99.00% ok, p99 250 ms, 1287/s achieved, failures {503=10}", ScaleRun.limitNote(m));
    }

    @Test
    void saysNothingWhenNoStepFailed() {
        MaxRateReport m = new MaxRateReport(List.of(step(1000, true, 1, Map.of())), 1000, null, "max-steps");
        assertEquals("", ScaleRun.limitNote(m));
    }

    @Test
    void aShortStepIsAllowedTheAnswersTail() {
        assertEquals(0.95 * 2 / 2.2, ScaleRun.minAchievedShare(java.time.Duration.ofSeconds(2), 200), 1e-9);
        assertEquals(0.95 * 60 / 60.2, ScaleRun.minAchievedShare(java.time.Duration.ofSeconds(60), 200), 1e-9,
                "long steps keep almost the whole 95 %");
    }
}
