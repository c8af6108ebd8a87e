package org.p2psip.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class HistogramQuantileTest {

    private static final double INF = Double.POSITIVE_INFINITY;

    @Test
    void aRankInsideABucketIsInterpolatedFromTheBoundBelow() {
        // 10 at most 1, 30 more at most 2: the median (rank 20) is half way into the second bucket.
        double median = HistogramQuantile.estimate(new double[] {1, 2, INF}, new long[] {10, 40, 40}, 0.5);

        assertEquals(1 + (20.0 - 10) / 30, median, 1e-9);
    }

    @Test
    void theFirstBucketStartsAtZero() {
        assertEquals(0.5, HistogramQuantile.estimate(new double[] {1, INF}, new long[] {4, 4}, 0.5), 1e-9);
    }

    @Test
    void aRankInTheInfiniteBucketGetsTheHighestFiniteBound() {
        assertEquals(2, HistogramQuantile.estimate(new double[] {1, 2, INF}, new long[] {1, 2, 100}, 0.99), 1e-9);
    }

    @Test
    void nothingObservedIsZero() {
        assertEquals(0, HistogramQuantile.estimate(new double[] {1, INF}, new long[] {0, 0}, 0.99));
    }

    @Test
    void aQuantileOutsideZeroToOneIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> HistogramQuantile.estimate(new double[] {1, INF}, new long[] {1, 1}, 1.5));
    }

    @Test
    void boundsAndCountsMustPair() {
        assertThrows(IllegalArgumentException.class,
                () -> HistogramQuantile.estimate(new double[] {1, INF}, new long[] {1}, 0.5));
    }

    @Test
    void aSnapshotMinusAnEarlierOneKeepsOnlyWhatCameBetween() {
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 0; i < 100; i++) {
            h.record(40_000_000L);
        }
        LatencySnapshot before = h.snapshot();
        for (int i = 0; i < 10; i++) {
            h.record(800_000L);
        }

        LatencySnapshot between = h.snapshot().minus(before);

        assertEquals(10, between.count());
        assertEquals(8_000_000L, between.sumNanos());
        // All ten in the (0.5 ms, 1 ms] bucket: the median is half way through it.
        assertEquals(750_000, between.quantileNanos(0.5), 1);
        assertEquals(0, LatencySnapshot.empty().quantileNanos(0.5));
        LatencySnapshot both = between.plus(before);
        assertEquals(110, both.count());
        assertEquals(between.sumNanos() + before.sumNanos(), both.sumNanos());
    }
}
