package org.p2psip.core.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PeerWindowsTest {

    private static final long SECOND = 1_000_000_000L;
    private final String peer = "10.0.0.1:4000";
    private final PeerWindows<String> windows = new PeerWindows<>(8, 2, 16, SECOND);

    @Test
    void windowShrinksOnTimeoutAndGrowsOnSuccess() {
        assertTrue(windows.tryAcquire(peer));
        assertTrue(windows.tryAcquire(peer));
        windows.timedOut(peer, 0);
        assertEquals(4, windows.window(peer));
        for (int i = 0; i < 4; i++) {
            assertTrue(windows.tryAcquire(peer));
            windows.answered(peer);
        }
        assertEquals(4, windows.window(peer), "four answers grow a window of four by one, not yet whole");
        assertTrue(windows.tryAcquire(peer));
        windows.answered(peer);
        assertEquals(5, windows.window(peer));
    }

    @Test
    void aFullWindowHoldsRequestsBack() {
        for (int i = 0; i < 8; i++) {
            assertTrue(windows.tryAcquire(peer), "request " + i);
        }
        assertFalse(windows.tryAcquire(peer));
        assertEquals(8, windows.inFlight(peer));
        windows.released(peer);
        assertTrue(windows.tryAcquire(peer));
        assertTrue(windows.tryAcquire("10.0.0.2:4000"), "another peer has a window of its own");
    }

    @Test
    void timeoutsOfOneSpellCutTheWindowOnce() {
        for (int i = 0; i < 8; i++) {
            windows.tryAcquire(peer);
        }
        for (int i = 0; i < 7; i++) {
            windows.timedOut(peer, i * (SECOND / 10));
        }
        assertEquals(4, windows.window(peer));
        windows.timedOut(peer, 2 * SECOND);
        assertEquals(2, windows.window(peer));
    }

    @Test
    void timeoutsNeverCloseAWindowBelowItsLeast() {
        for (int i = 0; i < 6; i++) {
            windows.tryAcquire(peer);
            windows.timedOut(peer, i * 2 * SECOND);
        }
        windows.tryAcquire(peer);
        assertEquals(2, windows.window(peer));
        assertTrue(windows.tryAcquire(peer));
        assertFalse(windows.tryAcquire(peer));
    }

    @Test
    void answersNeverGrowAWindowPastItsMost() {
        for (int i = 0; i < 1_000; i++) {
            windows.tryAcquire(peer);
            windows.tryAcquire(peer);
            windows.answered(peer);
        }
        assertEquals(16, windows.window(peer));
    }

    @Test
    void inconsistentBoundsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new PeerWindows<String>(8, 0, 16, 0));
        assertThrows(IllegalArgumentException.class, () -> new PeerWindows<String>(8, 4, 6, 0));
    }
}
