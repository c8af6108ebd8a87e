package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.KeyRange;
import org.p2psip.core.dht.KeyRangeSet;

class XorCellsTest {

    @Test
    void aNodeAloneIsClosestToEveryPoint() {
        assertEquals(KeyRangeSet.ALL, XorCells.of(42, List.of()));
        assertEquals(KeyRangeSet.ALL, XorCells.of(42, List.of(42L)), "itself among the others changes nothing");
    }

    @Test
    void twoNodesInOppositeHalvesSplitTheSpaceAtTheTopBit() {
        long low = 0x1000_0000_0000_0000L;
        long high = 0x9000_0000_0000_0000L;
        assertEquals(List.of(new KeyRange(0, Long.MAX_VALUE)), XorCells.of(low, List.of(high)).ranges());
        assertEquals(List.of(new KeyRange(Long.MIN_VALUE, -1L)), XorCells.of(high, List.of(low)).ranges());
    }

    @Test
    void anEmptyHalfIsSharedOutByTheLowerBits() {
        // Both ids start with 0: keys starting with 1 go by their next bits, so each node gets a stripe there.
        long a = 0x0000_0000_0000_0000L;
        long b = 0x4000_0000_0000_0000L;
        KeyRangeSet cellA = XorCells.of(a, List.of(b));
        assertTrue(cellA.contains(0x8000_0000_0000_0000L));
        assertFalse(cellA.contains(0xC000_0000_0000_0000L));
        assertEquals(2, cellA.ranges().size(), "two stripes: " + cellA);
        assertEquals(0.5, cellA.share(), 1e-12);
    }

    @Test
    void idsSharingALongPrefixLeaveTheirStripesUnclaimedRatherThanListThemAll() {
        long a = 0x0123_4567_0000_0000L;
        long b = a | 1L << 20;
        KeyRangeSet cellA = XorCells.of(a, List.of(b));
        KeyRangeSet cellB = XorCells.of(b, List.of(a));
        assertTrue(cellA.isEmpty() && cellB.isEmpty(), "2^43 stripes are not listed: " + cellA + " / " + cellB);
        long c = 0x8000_0000_0000_0000L;
        assertEquals(List.of(new KeyRange(Long.MIN_VALUE, -1L)), XorCells.of(c, List.of(a, b)).ranges(),
                "a node apart from them still claims its half");
    }

    @Test
    void theShareCountsStripesTooFineToList() {
        // The CI's case: two of three ids shared their top 12 bits, and status said the cluster owned half the space.
        long a = 0xDF7D_47F6_C217_40A5L;
        long b = 0xDF73_475E_535B_C192L;
        long c = 0x12CB_F0BC_B805_DF78L;
        assertTrue(XorCells.of(a, List.of(b, c)).isEmpty(), "the walk stops above a's stripes");
        assertEquals(0.25, XorCells.share(a, List.of(b, c)), 1e-12);
        assertEquals(0.25, XorCells.share(b, List.of(a, c)), 1e-12);
        assertEquals(0.5, XorCells.share(c, List.of(a, b)), 1e-12);

        SplittableRandom random = new SplittableRandom(5);
        int closestToA = 0;
        int samples = 100_000;
        for (int i = 0; i < samples; i++) {
            long point = random.nextLong();
            if (Long.compareUnsigned(a ^ point, b ^ point) < 0 && Long.compareUnsigned(a ^ point, c ^ point) < 0) {
                closestToA++;
            }
        }
        assertEquals(0.25, closestToA / (double) samples, 0.01, "sampled points closest to a");
    }

    @Test
    void sharesAddUpToTheWholeSpaceAndMatchTheCellsTheWalkCanList() {
        SplittableRandom random = new SplittableRandom(17);
        for (int round = 0; round < 300; round++) {
            int n = 1 + random.nextInt(12);
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                ids.add(round % 3 == 0 ? random.nextLong() >>> (8 + random.nextInt(40)) : random.nextLong());
            }
            boolean separable = longestSharedPrefix(ids) < XorCells.MAX_DEPTH;
            double total = 0;
            for (long id : ids) {
                double share = XorCells.share(id, ids);
                total += share;
                if (separable) {
                    assertEquals(XorCells.of(id, ids).share(), share, 1e-12, "node " + Long.toHexString(id));
                }
            }
            assertEquals(1.0, total, 1e-12, "ids " + ids);
        }
    }

    private static int longestSharedPrefix(List<Long> ids) {
        int longest = 0;
        for (int i = 0; i < ids.size(); i++) {
            for (int j = i + 1; j < ids.size(); j++) {
                longest = Math.max(longest, Long.numberOfLeadingZeros(ids.get(i) ^ ids.get(j)));
            }
        }
        return longest;
    }

    @Test
    void everyPointBelongsToExactlyTheClosestNodeByXor() {
        SplittableRandom random = new SplittableRandom(11);
        for (int round = 0; round < 200; round++) {
            int n = 1 + random.nextInt(12);
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                // Mostly random; some rounds crowd the ids into one corner, the case that fragments cells.
                ids.add(round % 3 == 0 ? random.nextLong() >>> (8 + random.nextInt(40)) : random.nextLong());
            }
            List<KeyRangeSet> cells = new ArrayList<>();
            for (long id : ids) {
                cells.add(XorCells.of(id, ids));
            }
            for (int k = 0; k < 300; k++) {
                long point = k % 2 == 0 ? random.nextLong() : ids.get(random.nextInt(n)) ^ random.nextLong(1 << 20);
                long closest = ids.get(0);
                for (long id : ids) {
                    if (Long.compareUnsigned(id ^ point, closest ^ point) < 0) {
                        closest = id;
                    }
                }
                boolean separable = longestSharedPrefix(ids) < XorCells.MAX_DEPTH;
                for (int i = 0; i < n; i++) {
                    boolean claims = cells.get(i).contains(point);
                    String what = "point " + Long.toHexString(point) + ", node " + Long.toHexString(ids.get(i));
                    if (claims) {
                        assertEquals(closest, ids.get(i), "a node claims only points it is closest to: " + what);
                    } else if (separable) {
                        assertTrue(ids.get(i) != closest, "the closest node claims the point: " + what);
                    }
                }
            }
        }
    }
}
