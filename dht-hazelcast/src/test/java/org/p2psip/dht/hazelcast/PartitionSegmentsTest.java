package org.p2psip.dht.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.KeyRange;
import org.p2psip.core.dht.KeyRangeSet;

class PartitionSegmentsTest {

    /** A stand-in for Hazelcast's hash: scatters integers over the partitions. */
    private static int scatter(int i, int count) {
        return Math.floorMod(i * 0x9E3779B1, count);
    }

    @Test
    void everyPartitionGetsTheSmallestIntegerThatLandsInIt() {
        PartitionSegments s = new PartitionSegments(271, i -> scatter(i, 271));
        for (int p = 0; p < 271; p++) {
            int rep = s.representative(p);
            assertEquals(p, scatter(rep, 271));
            for (int smaller = 0; smaller < rep; smaller++) {
                assertTrue(scatter(smaller, 271) != p, "a smaller integer lands in " + p);
            }
        }
    }

    @Test
    void slicesTileTheLineInPartitionOrder() {
        PartitionSegments s = new PartitionSegments(271, i -> scatter(i, 271));
        assertEquals(0, s.slice(0).first());
        assertEquals(-1L, s.slice(270).last());
        for (int p = 1; p < 271; p++) {
            assertEquals(s.slice(p - 1).last() + 1, s.slice(p).first(), "slice " + p + " follows its neighbour");
        }
        assertEquals(KeyRangeSet.ALL, s.slices(IntStream.range(0, 271).boxed().toList()));
    }

    @Test
    void aPointFallsInThePartitionWhoseSliceHoldsIt() {
        PartitionSegments s = new PartitionSegments(271, i -> scatter(i, 271));
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 20_000; i++) {
            long point = random.nextLong();
            assertTrue(s.slice(s.partitionOf(point)).contains(point), Long.toHexString(point));
        }
        for (int p = 0; p < 271; p++) {
            KeyRange slice = s.slice(p);
            assertEquals(p, s.partitionOf(slice.first()));
            assertEquals(p, s.partitionOf(slice.last()));
        }
    }

    @Test
    void oneSlicePerPartitionWhenThereIsOne() {
        PartitionSegments s = new PartitionSegments(1, i -> 0);
        assertEquals(List.of(KeyRange.ALL), s.slices(List.of(0)).ranges());
        assertEquals(0, s.partitionOf(-1L));
    }

    @Test
    void aHashThatNeverReachesAPartitionIsAnError() {
        assertThrows(IllegalStateException.class, () -> new PartitionSegments(3, i -> i % 2));
    }
}
