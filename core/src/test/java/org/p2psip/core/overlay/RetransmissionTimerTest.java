package org.p2psip.core.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RetransmissionTimerTest {

    private static final long MS = 1_000_000;
    private final RetransmissionTimer timer = new RetransmissionTimer(500 * MS, 150 * MS, 2_000 * MS);

    @Test
    void beforeAnySampleTheInitialTimeoutHolds() {
        assertEquals(500 * MS, timer.timeoutNanos());
    }

    @Test
    void theFirstSampleGivesItsRoundTripPlusTwiceItself() {
        timer.answered(100 * MS);
        assertEquals(300 * MS, timer.timeoutNanos(), "SRTT 100 + 4 x RTTVAR 50");
    }

    @Test
    void shortRoundTripsBringTheTimeoutDownToTheFloor() {
        for (int i = 0; i < 100; i++) {
            timer.answered(2 * MS);
        }
        assertEquals(150 * MS, timer.timeoutNanos());
    }

    @Test
    void roundTripsThatGrowRaiseTheTimeoutAboveThem() {
        for (int i = 0; i < 100; i++) {
            timer.answered(2 * MS);
        }
        for (int i = 0; i < 20; i++) {
            timer.answered(400 * MS);
        }
        assertTrue(timer.timeoutNanos() > 400 * MS, "a queue of 400 ms must not be resent into: "
                + timer.timeoutNanos() / MS + " ms");
    }

    @Test
    void eachExpiryDoublesTheTimeoutUpToTheCeiling() {
        timer.expired();
        assertEquals(1_000 * MS, timer.timeoutNanos());
        timer.expired();
        assertEquals(2_000 * MS, timer.timeoutNanos());
        timer.expired();
        assertEquals(2_000 * MS, timer.timeoutNanos());
    }

    @Test
    void aSampleAfterBackingOffStartsFromTheRoundTripsAgain() {
        timer.answered(10 * MS);
        timer.expired();
        timer.expired();
        timer.answered(10 * MS);
        assertEquals(150 * MS, timer.timeoutNanos());
    }

    @Test
    void aFloorAboveTheCeilingIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new RetransmissionTimer(MS, 3 * MS, 2 * MS));
        assertThrows(IllegalArgumentException.class, () -> new RetransmissionTimer(MS, 0, 2 * MS));
    }
}
