package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class HealthyStreakTest {

    private static final long BOUND = 250_000_000L;

    @Test
    void enoughFastSuccessesInARowReachIt() {
        HealthyStreak s = new HealthyStreak(3, BOUND);

        s.record(true, 1_000_000);
        s.record(true, 1_000_000);
        assertFalse(s.reached());
        s.record(true, BOUND);

        assertTrue(s.reached());
    }

    @Test
    void aFailureStartsTheStreakAgain() {
        HealthyStreak s = new HealthyStreak(3, BOUND);
        s.record(true, 1);
        s.record(true, 1);

        s.record(false, 1);
        s.record(true, 1);
        s.record(true, 1);

        assertFalse(s.reached());
    }

    @Test
    void aSlowSuccessStartsTheStreakAgain() {
        HealthyStreak s = new HealthyStreak(2, BOUND);
        s.record(true, 1);

        s.record(true, BOUND + 1);
        s.record(true, 1);

        assertFalse(s.reached());
    }
}
