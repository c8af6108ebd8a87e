package org.p2psip.core.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class RetryAfterSpreadTest {

    @Test
    void drawsEverySecondFromTheWaitToTwiceItAndNothingElse() {
        RetryAfterSpread spread = new RetryAfterSpread(5);
        SplittableRandom random = new SplittableRandom(33);
        TreeMap<Long, Integer> seen = new TreeMap<>();
        for (int i = 0; i < 6_000; i++) {
            seen.merge(spread.draw(random), 1, Integer::sum);
        }
        assertEquals(5L, seen.firstKey());
        assertEquals(10L, seen.lastKey());
        assertEquals(6, seen.size(), seen.toString());
        // Uniform: each of the six values near 1,000 times, none of them a burst.
        seen.values().forEach(n -> assertTrue(n > 850 && n < 1_150, seen.toString()));
    }

    @Test
    void zeroStaysZero() {
        assertEquals(0, new RetryAfterSpread(0).draw(new SplittableRandom(1)));
    }

    @Test
    void refusesNegativeAndAbsurdWaits() {
        assertThrows(IllegalArgumentException.class, () -> new RetryAfterSpread(-1));
        assertThrows(IllegalArgumentException.class, () -> new RetryAfterSpread(RetryAfterSpread.MAX_SECONDS + 1));
    }
}
