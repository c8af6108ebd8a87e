package org.p2psip.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class StandingDelayTest {

    private static final long MS = 1_000_000;
    private final StandingDelay delay = new StandingDelay(Duration.ofMillis(100));

    @Test
    void nothingMeasuredYetIsNoDelay() {
        assertEquals(0, delay.nanos(5 * MS));
    }

    @Test
    void theShortestOperationOfTheLastFullIntervalIsTheStandingDelay() {
        delay.completed(900 * MS, 0);
        delay.completed(300 * MS, 40 * MS);
        delay.completed(2_000 * MS, 90 * MS);
        assertEquals(0, delay.nanos(99 * MS), "the interval is not over yet");
        assertEquals(300 * MS, delay.nanos(100 * MS), "one quick operation among slow ones sets it");
        assertEquals(300 * MS, delay.nanos(199 * MS));
    }

    @Test
    void aFewSlowOperationsAmongQuickOnesAreABurstNotAQueue() {
        for (long t = 0; t < 100; t += 10) {
            delay.completed(MS, t * MS);
        }
        delay.completed(1_000 * MS, 95 * MS);
        assertEquals(MS, delay.nanos(120 * MS));
    }

    @Test
    void anIntervalWithNoCompletionsOrOneLongOverSaysNothing() {
        delay.completed(500 * MS, 10 * MS);
        assertEquals(500 * MS, delay.nanos(150 * MS));
        assertEquals(0, delay.nanos(230 * MS), "the interval from 100 to 200 ms had no completions");
        delay.completed(700 * MS, 240 * MS);
        assertEquals(0, delay.nanos(2_000 * MS), "that interval ended long ago");
    }

    @Test
    void aNonPositiveIntervalIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new StandingDelay(Duration.ZERO));
    }
}
