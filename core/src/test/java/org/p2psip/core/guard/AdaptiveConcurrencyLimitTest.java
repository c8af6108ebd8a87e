package org.p2psip.core.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.PriorityQueue;

import org.junit.jupiter.api.Test;

class AdaptiveConcurrencyLimitTest {

    private static final long MS = 1_000_000L;
    private static final AdaptiveConcurrencyLimit.Settings SETTINGS =
            new AdaptiveConcurrencyLimit.Settings(4, 20, 400, Duration.ofMillis(200), 0.9);

    /**
     * A client that keeps up to {@code wanted} operations in flight, trying
     * again every millisecond, against a DHT that answers each after a fixed
     * latency.
     */
    private static final class Load {
        private final AdaptiveConcurrencyLimit limit;
        private final PriorityQueue<long[]> running = new PriorityQueue<>((a, b) -> Long.compare(a[1], b[1]));
        private long nowMs;

        Load(AdaptiveConcurrencyLimit limit) {
            this.limit = limit;
        }

        Load run(long forMs, int wanted, long latencyMs) {
            for (long end = nowMs + forMs; nowMs < end; nowMs++) {
                while (!running.isEmpty() && running.peek()[1] <= nowMs) {
                    long[] op = running.poll();
                    limit.release(op[0] * MS, op[1] * MS, false);
                }
                while (running.size() < wanted && limit.tryAcquire()) {
                    running.add(new long[] {nowMs, nowMs + latencyMs});
                }
            }
            return this;
        }
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
    void limitGrowsByAnEighthAWindowWhileLatencyStaysLow() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        Load load = new Load(limit).run(1_000, 1_000, 50);
        assertTrue(limit.limit() >= 27, "20, 22, 24, 27, 30 over the windows that end within 1 s: " + limit.limit());
        assertTrue(limit.limit() <= 40, "by an eighth, not doubling: " + limit.limit());
        load.run(10_000, 1_000, 50);
        assertEquals(400, limit.limit(), "up to the max within seconds");
    }

    @Test
    void limitGrowsWhileTheMeanIsUnderTheTargetThoughItIsNotSmall() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        new Load(limit).run(4_000, 1_000, 180);
        assertTrue(limit.limit() > 20, "a DHT that answers within the target carries more: " + limit.limit());
    }

    @Test
    void limitDoesNotGrowWhenLittleOfItIsUsed() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        new Load(limit).run(10_000, 5, 1);
        assertEquals(20, limit.limit(), "five in flight say nothing about whether twenty more would be served");
        assertEquals(0, limit.refused());
    }

    @Test
    void limitNeverGrowsBeyondMax() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(
                new AdaptiveConcurrencyLimit.Settings(4, 20, 30, Duration.ofMillis(200), 0.9));
        new Load(limit).run(10_000, 1_000, 10);
        assertEquals(30, limit.limit());
    }

    /**
     * Admits {@link AdaptiveConcurrencyLimit#MIN_SAMPLES} operations at {@code startMs} and completes them
     * {@code latencyMs} later: one window, when {@code latencyMs} is at least the target.
     */
    private static void window(AdaptiveConcurrencyLimit limit, long startMs, long latencyMs) {
        for (int i = 0; i < AdaptiveConcurrencyLimit.MIN_SAMPLES; i++) {
            assertTrue(limit.tryAcquire(), "place " + i);
        }
        for (int i = 0; i < AdaptiveConcurrencyLimit.MIN_SAMPLES; i++) {
            limit.release(startMs * MS, (startMs + latencyMs) * MS, false);
        }
    }

    @Test
    void limitShrinksWhenLatencyStaysPastTheTargetForASecondWindow() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        window(limit, 0, 210);
        assertEquals(20, limit.limit(), "one slow window may be a pause, not a queue");
        window(limit, 210, 210);
        assertEquals(18, limit.limit(), "a mean just over the target cuts by the backoff: 20 x 0.9");
    }

    @Test
    void aPauseThatSlowsOneWindowCutsNothing() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        window(limit, 0, 200);
        window(limit, 200, 1_000);
        window(limit, 1_200, 200);
        window(limit, 1_400, 1_000);
        assertEquals(24, limit.limit(), "slow windows between quick ones are stalls the DHT caught up on; the "
                + "quick ones, half used, grew it: 20, 22, 24");
    }

    @Test
    void aWindowEndsOnlyOnceItHoldsEnoughCompletions() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        for (int round = 0; round < 2; round++) {
            for (int i = 1; i < AdaptiveConcurrencyLimit.MIN_SAMPLES; i++) {
                assertTrue(limit.tryAcquire());
                limit.release(round * 10_000 * MS, (round * 10_000 + 5_000) * MS, false);
            }
        }
        assertEquals(20, limit.limit(), "a few slow hops, however slow, are no mean to act on");
        assertTrue(limit.tryAcquire());
        limit.release(20_000 * MS, 25_000 * MS, false);
        assertTrue(limit.tryAcquire());
        limit.release(20_000 * MS, 25_000 * MS, false);
        assertEquals(10, limit.limit(), "the window that reached enough completions was the second slow one");
    }

    @Test
    void theFurtherPastTheTargetTheDeeperTheCutButNeverMoreThanHalf() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        window(limit, 0, 250);
        window(limit, 250, 250);
        assertEquals(16, limit.limit(), "20 x 200/250");

        AdaptiveConcurrencyLimit worse = new AdaptiveConcurrencyLimit(SETTINGS);
        window(worse, 0, 5_000);
        window(worse, 5_000, 5_000);
        assertEquals(10, worse.limit(), "20 x 0.5");
    }

    @Test
    void theMeanOfAWindowDecidesNotItsSlowestOperation() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        for (int i = 0; i < 20; i++) {
            assertTrue(limit.tryAcquire());
        }
        for (int i = 0; i < 19; i++) {
            limit.release(i * MS, i * MS + 10 * MS, false);
        }
        limit.release(0, 600 * MS, false);
        assertEquals(22, limit.limit(), "one slow hop among quick local answers is no queue: mean 39.5 ms, 20 + 20/8");
    }

    @Test
    void aTimeoutInAWindowHalvesTheLimitHoweverFastTheRestCame() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        assertTrue(limit.tryAcquire());
        assertTrue(limit.tryAcquire());
        limit.release(0, 5 * MS, true);
        limit.release(0, 200 * MS, false);
        assertEquals(10, limit.limit());
    }

    @Test
    void slowCompletionsOfOperationsAdmittedBeforeACutDoNotCutAgain() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(
                new AdaptiveConcurrencyLimit.Settings(4, 100, 400, Duration.ofMillis(200), 0.9));
        for (int i = 0; i < 60; i++) {
            assertTrue(limit.tryAcquire());
        }
        for (int i = 0; i < 16; i++) {
            limit.release(0, 300 * MS, false);
        }
        for (int i = 0; i < 16; i++) {
            limit.release(0, 600 * MS, false);
        }
        assertEquals(50, limit.limit(), "two slow windows in a row: 100 x 0.5");
        for (int i = 0; i < 20; i++) {
            limit.release(0, 700 * MS + i * 100 * MS, false);
        }
        assertEquals(50, limit.limit(), "admitted under the old limit, they report on it");

        window(limit, 601, 400);
        assertEquals(25, limit.limit(), "operations started after the cut report on the new limit: 50 x 0.5");
    }

    @Test
    void limitNeverFallsBelowFloor() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        Load load = new Load(limit).run(20_000, 1_000, 2_000);
        assertEquals(4, limit.limit());
        long before = limit.refused();
        load.run(6_000, 4, 2_000);
        assertEquals(before, limit.refused(), "the floor's worth in flight is never refused");
    }

    @Test
    void aCutLimitRecoversOnceLatencyIsLowAgain() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        Load load = new Load(limit).run(20_000, 1_000, 1_000);
        assertEquals(4, limit.limit());
        load.run(10_000, 1_000, 20);
        assertTrue(limit.limit() >= 40, "limit " + limit.limit());
    }

    @Test
    void inFlightBeyondACutLimitIsRefusedUntilItDrainsBelowIt() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(SETTINGS);
        for (int i = 0; i < 20; i++) {
            assertTrue(limit.tryAcquire());
        }
        limit.release(0, 5_000 * MS, true);
        limit.release(0, 5_000 * MS, true);
        assertEquals(10, limit.limit());
        assertEquals(18, limit.inFlight());
        assertFalse(limit.tryAcquire());
        for (int i = 0; i < 8; i++) {
            limit.release(0, 5_000 * MS, false);
        }
        assertFalse(limit.tryAcquire(), "ten in flight fill a limit of ten");
        limit.release(0, 5_000 * MS, false);
        assertTrue(limit.tryAcquire());
    }

    @Test
    void unboundedSettingsNeverRefuse() {
        AdaptiveConcurrencyLimit limit = new AdaptiveConcurrencyLimit(AdaptiveConcurrencyLimit.Settings.unbounded());
        for (int i = 0; i < 10_000; i++) {
            assertTrue(limit.tryAcquire());
        }
        limit.release(0, 60_000 * MS, true);
        limit.release(0, 60_000 * MS, true);
        assertTrue(limit.tryAcquire());
        assertEquals(0, limit.refused());
    }

    @Test
    void settingsRefuseLimitsOutOfOrderAZeroTargetAndABackoffOutsideItsRange() {
        Duration target = Duration.ofMillis(200);
        assertRefused(0, 1, 1, target, 0.9);
        assertRefused(8, 4, 16, target, 0.9);
        assertRefused(4, 8, 6, target, 0.9);
        assertRefused(4, 8, 16, Duration.ZERO, 0.9);
        assertRefused(4, 8, 16, target, 1.0);
        assertRefused(4, 8, 16, target, 0.5);
    }

    private static void assertRefused(int floor, int initial, int max, Duration target, double backoff) {
        assertThrows(IllegalArgumentException.class,
                () -> new AdaptiveConcurrencyLimit.Settings(floor, initial, max, target, backoff));
    }
}
