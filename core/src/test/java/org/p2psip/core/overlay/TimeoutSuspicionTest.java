package org.p2psip.core.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class TimeoutSuspicionTest {

    private static final long SECOND = 1_000_000_000L;
    private final String peer = "10.0.0.1:4000";
    private final String other = "10.0.0.2:4000";
    private final TimeoutSuspicion<String> suspicion = new TimeoutSuspicion<>(Duration.ofSeconds(3));

    @Test
    void timeoutsLandingTogetherDoNotCondemnALivePeer() {
        for (int i = 0; i < 20; i++) {
            assertFalse(suspicion.timedOut(peer, 5 * SECOND + i), "timeout " + i);
        }
    }

    @Test
    void aPeerSilentForTheWindowWithEnoughTimeoutsIsDead() {
        assertFalse(suspicion.timedOut(peer, 0));
        assertFalse(suspicion.timedOut(peer, 1 * SECOND));
        assertFalse(suspicion.timedOut(peer, 2 * SECOND));
        assertTrue(suspicion.timedOut(peer, 3 * SECOND));
    }

    @Test
    void theWindowAloneIsNotEnoughWithoutRepeatedTimeouts() {
        assertFalse(suspicion.timedOut(peer, 0));
        assertFalse(suspicion.timedOut(peer, 10 * SECOND));
        assertTrue(suspicion.timedOut(peer, 11 * SECOND));
    }

    @Test
    void anAnswerStartsTheSilenceAgain() {
        suspicion.timedOut(peer, 0);
        suspicion.timedOut(peer, 1 * SECOND);
        suspicion.answered(peer);
        assertFalse(suspicion.timedOut(peer, 3 * SECOND));
        assertFalse(suspicion.timedOut(peer, 4 * SECOND));
        assertFalse(suspicion.timedOut(peer, 5 * SECOND));
        assertTrue(suspicion.timedOut(peer, 6 * SECOND));
    }

    @Test
    void peersAreSuspectedApart() {
        suspicion.timedOut(peer, 0);
        suspicion.timedOut(peer, 2 * SECOND);
        assertFalse(suspicion.timedOut(other, 3 * SECOND));
        assertTrue(suspicion.timedOut(peer, 3 * SECOND));
    }

    @Test
    void aCondemnedPeerComesBackWithACleanRecord() {
        suspicion.timedOut(peer, 0);
        suspicion.timedOut(peer, 1 * SECOND);
        assertTrue(suspicion.timedOut(peer, 3 * SECOND));
        assertFalse(suspicion.timedOut(peer, 4 * SECOND));
    }

    @Test
    void aZeroWindowCountsTimeoutsOnly() {
        TimeoutSuspicion<String> counting = new TimeoutSuspicion<>(Duration.ZERO);
        assertFalse(counting.timedOut(peer, 0));
        assertFalse(counting.timedOut(peer, 0));
        assertTrue(counting.timedOut(peer, 0));
    }

    @Test
    void aNegativeWindowIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new TimeoutSuspicion<String>(Duration.ofMillis(-1)));
    }

    @Test
    void timeoutsWhileSelfLagsDoNotWriteOffPeer() {
        SchedulingLag lag = new SchedulingLag(0, 60 * SECOND);
        TimeoutSuspicion<String> aware = new TimeoutSuspicion<>(Duration.ofSeconds(3), Duration.ofSeconds(1), lag);
        lag.due(0);
        for (long t = 1; t <= 10; t++) {
            assertFalse(aware.timedOut(peer, t * SECOND), "a timeout at " + t + " s while the loop is behind");
        }
        assertEquals(10, aware.excusedTimeouts());
    }

    @Test
    void lagDuringASilenceExtendsTheWindow() {
        SchedulingLag lag = new SchedulingLag(0, 60 * SECOND);
        TimeoutSuspicion<String> aware = new TimeoutSuspicion<>(Duration.ofSeconds(3), Duration.ofSeconds(1), lag);
        assertFalse(aware.timedOut(peer, 0));
        lag.due(SECOND / 2);
        lag.ran(5 * SECOND + SECOND / 2);
        assertFalse(aware.timedOut(peer, 7 * SECOND));
        assertFalse(aware.timedOut(peer, 7 * SECOND + SECOND / 2), "7.5 s of silence, of which 2.5 s kept up");
        assertTrue(aware.timedOut(peer, 8 * SECOND), "3 s kept up");
    }

    @Test
    void aTimeoutWhoseWaitBarelyLaggedStillCounts() {
        SchedulingLag lag = new SchedulingLag(0, 60 * SECOND);
        TimeoutSuspicion<String> aware = new TimeoutSuspicion<>(Duration.ZERO, Duration.ofSeconds(1), lag);
        lag.due(9 * SECOND);
        lag.ran(9 * SECOND + SECOND / 10);
        assertFalse(aware.timedOut(peer, 10 * SECOND));
        assertFalse(aware.timedOut(peer, 10 * SECOND));
        assertTrue(aware.timedOut(peer, 10 * SECOND), "a tenth of the wait behind is not a sizeable share");
    }

    @Test
    void failuresOtherThanTimeoutsAreNotExcused() {
        SchedulingLag lag = new SchedulingLag(0, 60 * SECOND);
        TimeoutSuspicion<String> aware = new TimeoutSuspicion<>(Duration.ofSeconds(2), Duration.ofSeconds(1), lag);
        lag.due(0);
        assertFalse(aware.failed(peer, SECOND));
        assertFalse(aware.failed(peer, 2 * SECOND));
        assertTrue(aware.failed(peer, 3 * SECOND), "the lag neither excuses nor extends");
    }
}
