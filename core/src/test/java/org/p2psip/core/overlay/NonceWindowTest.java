package org.p2psip.core.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** The datagram freshness decision, with time passed in. */
class NonceWindowTest {

    private static final long T = 1_700_000_000_000L;
    private final NonceWindow window = new NonceWindow(Duration.ofSeconds(30), Duration.ofSeconds(1), 1000);

    @Test
    void aFreshFrameIsAdmittedOnceAndItsReplayRefused() {
        assertEquals(NonceWindow.Verdict.FRESH, window.admit(T, 1, 2, T));
        assertEquals(NonceWindow.Verdict.REPLAYED, window.admit(T, 1, 2, T + 29_000));
        assertEquals(NonceWindow.Verdict.FRESH, window.admit(T, 1, 3, T), "another nonce, same time");
    }

    @Test
    void framesOutsideTheWindowAreRefusedEitherWay() {
        assertEquals(NonceWindow.Verdict.TOO_OLD, window.admit(T - 30_001, 1, 1, T));
        assertEquals(NonceWindow.Verdict.TOO_NEW, window.admit(T + 30_001, 1, 2, T));
        assertEquals(NonceWindow.Verdict.FRESH, window.admit(T - 30_000, 1, 3, T), "the edge is inside");
        assertEquals(NonceWindow.Verdict.FRESH, window.admit(T + 30_000, 1, 4, T), "a peer's clock ahead");
    }

    @Test
    void aReplayAfterTheWindowHasPassedIsTooOldAndItsNonceIsForgotten() {
        window.admit(T, 7, 7, T);
        assertEquals(1, window.size());
        assertEquals(NonceWindow.Verdict.TOO_OLD, window.admit(T, 7, 7, T + 31_000));
        assertEquals(0, window.size());
    }

    @Test
    void aClockSteppingBackDoesNotReadmitFramesWhoseNoncesWereForgotten() {
        window.admit(T, 7, 7, T);
        window.admit(T + 40_000, 8, 8, T + 40_000);
        assertEquals(NonceWindow.Verdict.TOO_OLD, window.admit(T, 7, 7, T + 5_000));
    }

    @Test
    void aFullWindowRefusesNewFramesUntilOldNoncesLeaveIt() {
        NonceWindow small = new NonceWindow(Duration.ofSeconds(30), Duration.ofSeconds(1), 3);
        for (long n = 0; n < 3; n++) {
            assertEquals(NonceWindow.Verdict.FRESH, small.admit(T, 0, n, T));
        }
        assertEquals(NonceWindow.Verdict.FULL, small.admit(T, 0, 9, T));
        assertEquals(NonceWindow.Verdict.REPLAYED, small.admit(T, 0, 1, T), "a replay is still a replay");
        assertEquals(NonceWindow.Verdict.FRESH, small.admit(T + 31_000, 0, 9, T + 31_000));
        assertEquals(1, small.size());
    }

    @Test
    void aNonceIsRememberedByItsFramesTimeNotByArrival() {
        // Stamped near the old edge, it must still be refused until its own time leaves the window.
        window.admit(T - 29_500, 5, 5, T);
        assertEquals(NonceWindow.Verdict.REPLAYED, window.admit(T - 29_500, 5, 5, T + 400));
        assertEquals(NonceWindow.Verdict.TOO_OLD, window.admit(T - 29_500, 5, 5, T + 600));
    }

    @Test
    void nonsenseBoundsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new NonceWindow(Duration.ZERO, Duration.ofSeconds(1), 1));
        assertThrows(IllegalArgumentException.class,
                () -> new NonceWindow(Duration.ofSeconds(1), Duration.ofSeconds(2), 1));
        assertThrows(IllegalArgumentException.class,
                () -> new NonceWindow(Duration.ofSeconds(1), Duration.ofSeconds(1), 0));
    }
}
