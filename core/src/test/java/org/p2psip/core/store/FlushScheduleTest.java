package org.p2psip.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class FlushScheduleTest {

    private final FlushSchedule schedule = new FlushSchedule(new FlushPolicy(100, Duration.ofMillis(40)));

    @Test
    void nothingPendingWaitsForAChange() {
        assertEquals(-1, schedule.waitNanos(0, 0, 1_000_000_000L));
    }

    @Test
    void aFullBatchGoesAtOnce() {
        assertEquals(0, schedule.waitNanos(100, 5, 5));
        assertEquals(0, schedule.waitNanos(250, 5, 5));
    }

    @Test
    void aSmallBatchWaitsUntilItsOldestChangeHasWaitedTheInterval() {
        assertEquals(30_000_000L, schedule.waitNanos(3, 0, 10_000_000L));
        assertEquals(0, schedule.waitNanos(3, 0, 40_000_000L));
        assertEquals(0, schedule.waitNanos(3, 0, 90_000_000L), "late is now, not negative");
    }

    @Test
    void aCountOfOneWritesEachChangeAtOnce() {
        FlushSchedule eager = new FlushSchedule(new FlushPolicy(1, Duration.ofSeconds(1)));
        assertEquals(0, eager.waitNanos(1, 0, 0));
    }

    @Test
    void aPolicyNeedsAPositiveCountAndInterval() {
        assertThrows(IllegalArgumentException.class, () -> new FlushPolicy(0, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new FlushPolicy(1, Duration.ZERO));
    }
}
