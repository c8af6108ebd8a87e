package org.p2psip.core.dht;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

class KeyRangeSetTest {

    @Test
    void overlappingAndAdjacentRangesMergeAndSort() {
        KeyRangeSet s = KeyRangeSet.of(List.of(new KeyRange(20, 30), new KeyRange(0, 9), new KeyRange(10, 12),
                new KeyRange(25, 40), new KeyRange(50, 50)));
        assertEquals(List.of(new KeyRange(0, 12), new KeyRange(20, 40), new KeyRange(50, 50)), s.ranges());
    }

    @Test
    void aRangeEndingAtTheTopSwallowsEverythingAfterIt() {
        KeyRangeSet s = KeyRangeSet.of(List.of(new KeyRange(-10L, -1L), new KeyRange(-5L, -2L), new KeyRange(3, 4)));
        assertEquals(List.of(new KeyRange(3, 4), new KeyRange(-10L, -1L)), s.ranges());
    }

    @Test
    void pointsAreComparedUnsigned() {
        KeyRangeSet s = KeyRangeSet.of(List.of(new KeyRange(Long.MAX_VALUE, Long.MIN_VALUE + 5)));
        assertTrue(s.contains(Long.MIN_VALUE));
        assertTrue(s.contains(Long.MAX_VALUE));
        assertFalse(s.contains(Long.MIN_VALUE + 6));
        assertFalse(s.contains(0));
        assertThrows(IllegalArgumentException.class, () -> new KeyRange(-1L, 0));
    }

    @Test
    void anArcIsHalfOpenAndWrapsPastTheTop() {
        KeyRangeSet plain = KeyRangeSet.arc(10, 20);
        assertFalse(plain.contains(10));
        assertTrue(plain.contains(11));
        assertTrue(plain.contains(20));
        assertFalse(plain.contains(21));

        KeyRangeSet wrapping = KeyRangeSet.arc(-3L, 2);
        assertFalse(wrapping.contains(-3L));
        assertTrue(wrapping.contains(-2L));
        assertTrue(wrapping.contains(-1L));
        assertTrue(wrapping.contains(0));
        assertTrue(wrapping.contains(2));
        assertFalse(wrapping.contains(3));

        assertEquals(List.of(new KeyRange(0, 7)), KeyRangeSet.arc(-1L, 7).ranges(), "nothing after the top");
        assertEquals(KeyRangeSet.ALL, KeyRangeSet.arc(5, 5), "a node that is its own predecessor owns all");
    }

    @Test
    void arcsBetweenConsecutiveRingPositionsTileTheSpace() {
        long[] ring = {-7L, 3, 1L << 40, Long.MAX_VALUE, Long.MIN_VALUE};
        java.util.Arrays.sort(ring);
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 10_000; i++) {
            long p = random.nextLong();
            int claims = 0;
            for (int n = 0; n < ring.length; n++) {
                long pred = ring[(n + ring.length - 1) % ring.length];
                claims += KeyRangeSet.arc(pred, ring[n]).contains(p) ? 1 : 0;
            }
            assertEquals(1, claims, "point " + Long.toHexString(p));
        }
    }

    @Test
    void theTextFormRoundTrips() {
        KeyRangeSet s = KeyRangeSet.arc(-3L, 1L << 62);
        assertEquals("0000000000000000-4000000000000000,fffffffffffffffe-ffffffffffffffff", s.format());
        assertEquals(s, KeyRangeSet.parse(s.format()));
        assertEquals(KeyRangeSet.NONE, KeyRangeSet.parse(" none "));
        assertEquals("none", KeyRangeSet.NONE.format());
    }

    @Test
    void badTextIsRefusedWithTheReason() {
        for (String bad : List.of("", "12", "-5", "5-", "x-5", "10000000000000000-1", "9-1", "1-2,,3-4")) {
            assertThrows(IllegalArgumentException.class, () -> KeyRangeSet.parse(bad), bad);
        }
    }

    @Test
    void shareIsTheFractionOfTheSpaceCovered() {
        assertEquals(1.0, KeyRangeSet.ALL.share());
        assertEquals(0.0, KeyRangeSet.NONE.share());
        assertEquals(0.5, KeyRangeSet.arc(-1L, Long.MAX_VALUE).share(), 1e-12);
    }
}
