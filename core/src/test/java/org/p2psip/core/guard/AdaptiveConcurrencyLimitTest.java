package org.p2psip.core.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class AdaptiveConcurrencyLimitTest {

    private static final long MS = 1_000_000L;
    private static final AdaptiveConcurrencyLimit.Settings SETTINGS =
            new AdaptiveConcurrencyLimit.Settings(4, 20, 40, Duration.ofMillis(200), 0.9);

    /** Fills the limit, then completes every operation {@code latencyMs} after it started; returns when they end. */
    private static long fullRound(AdaptiveConcurrencyLimit limit, long startNanos, long latencyMs) {
        int admitted = 0;
        while (limit.tryAcquire()) {
            admitted++;
        }
        long end = startNanos + latencyMs * MS;
        for (int i = 0; i < admitted; i++) {
            limit.release(startNanos, end, false);
        }
        return end + MS;
    }

    @Test
    void requestBeyondLimitIsRefused() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        for (int i = 0; i < 20; i++) {
            assertTrue(limit.tryAcquire(), "place " + i);
        }
        assertFalse(limit.tryAcquire());
        assertEquals(20, limit.inFlight(), "a refusal takes no place");
        assertEquals(1, limit.refused());

        limit.release(0, 150 * MS, false);
        assertTrue(limit.tryAcquire(), "a released place is free again");
    }

    @Test
    void limitGrowsWhileLatencyStaysLow() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        long now = 0;
        for (int round = 0; round < 20; round++) {
            now = fullRound(limit, now, 10);
        }
        assertTrue(limit.limit() >= 27, "limit " + limit.limit());
        assertTrue(limit.limit() <= 31, "by about one per two round trips, not doubling: " + limit.limit());
    }

    @Test
    void limitDoesNotGrowWhenLittleOfItIsUsed() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        for (int i = 0; i < 1_000; i++) {
            assertTrue(limit.tryAcquire());
            assertTrue(limit.tryAcquire());
            limit.release(i * MS, i * MS + MS, false);
            limit.release(i * MS, i * MS + MS, false);
        }
        assertEquals(20, limit.limit(), "two in flight say nothing about whether twenty more would be served");
    }

    @Test
    void limitNeverGrowsBeyondMax() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        long now = 0;
        for (int round = 0; round < 2_000; round++) {
            now = fullRound(limit, now, 1);
        }
        assertEquals(40, limit.limit());
    }

    @Test
    void limitHoldsWhileLatencyIsBetweenHalfTheTargetAndTheTarget() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        long now = 0;
        for (int round = 0; round < 50; round++) {
            now = fullRound(limit, now, 150);
        }
        assertEquals(20, limit.limit());
    }

    @Test
    void limitShrinksWhenLatencyPassesTarget() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        fullRound(limit, 0, 210);
        assertEquals(18, limit.limit(), "just over the target cuts by the backoff: 20 x 0.9");
    }

    @Test
    void theFurtherPastTheTargetTheDeeperTheCutButNeverMoreThanHalf() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        fullRound(limit, 0, 250);
        assertEquals(16, limit.limit(), "20 x 200/250");

        AdaptiveConcurrencyLimit worse = new AdaptiveConcurrencyLimit(SETTINGS);
        fullRound(worse, 0, 5_000);
        assertEquals(10, worse.limit(), "20 x 0.5");
    }

    @Test
    void timeoutHalvesTheLimitHoweverFastItCame() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        assertTrue(limit.tryAcquire());
        limit.release(0, 5 * MS, true);
        assertEquals(10, limit.limit());
    }

    @Test
    void slowCompletionsOfOperationsAdmittedBeforeACutDoNotCutAgain() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        for (int i = 0; i < 20; i++) {
            assertTrue(limit.tryAcquire());
        }
        for (int i = 0; i < 20; i++) {
            limit.release(i * MS, 300 * MS + i * MS, false);
        }
        assertEquals(13, limit.limit(), "one cut, 20 x 200/300, for a burst admitted under the old limit");

        assertTrue(limit.tryAcquire());
        limit.release(301 * MS, 601 * MS, false);
        assertEquals(8, limit.limit(), "an operation started after the cut reports on the new limit: 13 x 200/300");
    }

    @Test
    void limitNeverFallsBelowFloor() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        long now = 0;
        for (int i = 0; i < 100; i++) {
            assertTrue(limit.tryAcquire());
            limit.release(now, now + 10_000 * MS, true);
            now += 10_001 * MS;
        }
        assertEquals(4, limit.limit());
        for (int i = 0; i < 4; i++) {
            assertTrue(limit.tryAcquire(), "the floor is always admitted: place " + i);
        }
        assertFalse(limit.tryAcquire());
    }

    @Test
    void aCutLimitRecoversOnceLatencyIsLowAgain() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        long now = fullRound(limit, 0, 5_000);
        assertEquals(10, limit.limit());
        for (int round = 0; round < 20; round++) {
            now = fullRound(limit, now, 10);
        }
        assertTrue(limit.limit() >= 15, "limit " + limit.limit());
    }

    @Test
    void inFlightBeyondACutLimitIsRefusedUntilItDrainsBelowIt() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        for (int i = 0; i < 20; i++) {
            assertTrue(limit.tryAcquire());
        }
        limit.release(0, 5_000 * MS, false);
        assertEquals(10, limit.limit());
        assertEquals(19, limit.inFlight());
        assertFalse(limit.tryAcquire());
        for (int i = 0; i < 10; i++) {
            limit.release(0, 5_000 * MS, false);
        }
        assertTrue(limit.tryAcquire());
    }

    @Test
    void unboundedSettingsNeverRefuse() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(AdaptiveConcurrencyLimit.Settings.unbounded());
        for (int i = 0; i < 10_000; i++) {
            assertTrue(limit.tryAcquire());
        }
        limit.release(0, 60_000 * MS, true);
        assertTrue(limit.tryAcquire());
        assertEquals(0, limit.refused());
    }

    @Test
    void settingsRefuseAFloorAboveTheInitialLimitAndABackoffOutsideItsRange() {
        Duration target = Duration.ofMillis(200);
        assertThrows(IllegalArgumentException.class, () -> new AdaptiveConcurrencyLimit.Settings(0, 1, 1, target, 0.9));
        assertThrows(IllegalArgumentException.class, () -> new AdaptiveConcurrencyLimit.Settings(8, 4, 16, target, 0.9));
        assertThrows(IllegalArgumentException.class, () -> new AdaptiveConcurrencyLimit.Settings(4, 8, 6, target, 0.9));
        assertThrows(IllegalArgumentException.class,
                () -> new AdaptiveConcurrencyLimit.Settings(4, 8, 16, Duration.ZERO, 0.9));
        assertThrows(IllegalArgumentException.class, () -> new AdaptiveConcurrencyLimit.Settings(4, 8, 16, target, 1.0));
        assertThrows(IllegalArgumentException.class, () -> new AdaptiveConcurrencyLimit.Settings(4, 8, 16, target, 0.5));
    }
}
