package org.p2psip.core.overlay;

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
}
