package org.p2psip.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    private static final int INF = LatencyHistogram.UPPER_BOUNDS_NANOS.size();

    @Test
    void theBoundsAreTheContractsFromHalfAMillisecondToTwentyFiveSeconds() {
        List<Double> seconds = LatencyHistogram.UPPER_BOUNDS_NANOS.stream().map(n -> n / 1e9).toList();

        assertEquals(List.of(0.0005, 0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15,
                0.2, 0.3, 0.5, 0.75, 1.0, 2.5, 5.0, 10.0, 25.0), seconds);
    }

    @Test
    void aDurationEqualToABoundFallsInThatBoundsBucketAndOneNanosecondMoreInTheNext() {
        for (int i = 0; i < INF; i++) {
            long bound = LatencyHistogram.UPPER_BOUNDS_NANOS.get(i);
            assertEquals(i, LatencyHistogram.bucketOf(bound), "le is inclusive at " + bound);
            assertEquals(i + 1, LatencyHistogram.bucketOf(bound + 1), "just past " + bound);
        }
        assertEquals(0, LatencyHistogram.bucketOf(0));
        assertEquals(INF, LatencyHistogram.bucketOf(Long.MAX_VALUE));
    }

    @Test
    void aSnapshotIsCumulativeWithTheTotalInTheInfBucketAndTheSumInNanoseconds() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(500_000);          // le 0.0005 exactly
        h.record(500_001);          // le 0.001
        h.record(3_000_000);        // le 0.005
        h.record(30_000_000_000L);  // past 25 s: +Inf only

        LatencySnapshot s = h.snapshot();

        List<Long> expected = new ArrayList<>(Collections.nCopies(INF + 1, 3L));
        expected.set(0, 1L);
        expected.set(1, 2L);
        expected.set(2, 2L);
        expected.set(INF, 4L);
        assertEquals(expected, s.cumulativeCounts());
        assertEquals(4, s.count());
        assertEquals(500_000 + 500_001 + 3_000_000 + 30_000_000_000L, s.sumNanos());
    }

    @Test
    void anEmptyHistogramReadsAllZeros() {
        LatencySnapshot s = new LatencyHistogram().snapshot();

        assertEquals(Collections.nCopies(INF + 1, 0L), s.cumulativeCounts());
        assertEquals(0, s.sumNanos());
    }

    @Test
    void aNegativeDurationFromATimeSourceThatSteppedBackCountsAsZero() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(-5);

        LatencySnapshot s = h.snapshot();

        assertEquals(1, s.cumulativeCounts().get(0));
        assertEquals(0, s.sumNanos());
    }

    @Test
    void recordingsFromManyThreadsAtOnceAreAllCounted() throws Exception {
        LatencyHistogram h = new LatencyHistogram();
        int threads = 4;
        int each = 50_000;
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    h.record(1_000_000);
                }
            });
            workers.add(w);
            w.start();
        }
        for (Thread w : workers) {
            w.join();
        }

        LatencySnapshot s = h.snapshot();

        assertEquals((long) threads * each, s.count());
        assertEquals((long) threads * each, s.cumulativeCounts().get(1));
        assertEquals((long) threads * each * 1_000_000, s.sumNanos());
    }

    @Test
    void aSnapshotRefusesDecreasingCountsAWrongBucketCountOrANegativeSum() {
        List<Long> good = Collections.nCopies(INF + 1, 1L);
        List<Long> decreasing = new ArrayList<>(good);
        decreasing.set(INF, 0L);

        assertThrows(IllegalArgumentException.class, () -> new LatencySnapshot(decreasing, 0));
        assertThrows(IllegalArgumentException.class, () -> new LatencySnapshot(good.subList(0, INF), 0));
        assertThrows(IllegalArgumentException.class, () -> new LatencySnapshot(good, -1));
        assertEquals(1, new LatencySnapshot(good, 0).count());
    }
}
