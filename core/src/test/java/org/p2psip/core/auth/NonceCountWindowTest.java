package org.p2psip.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NonceCountWindowTest {

    private static NonceCountWindow accepted(NonceCountWindow w, long nc) {
        return w.accept(nc).orElseThrow(() -> new AssertionError("nc " + nc + " refused by " + w));
    }

    @Test
    void eachCountIsAcceptedOnce() {
        NonceCountWindow w = accepted(NonceCountWindow.EMPTY, 1);
        w = accepted(w, 2);
        assertTrue(w.accept(2).isEmpty());
        assertTrue(w.accept(1).isEmpty());
    }

    @Test
    void countsArrivingOutOfOrderWithinTheWindowAreAccepted() {
        NonceCountWindow w = accepted(NonceCountWindow.EMPTY, 5);
        w = accepted(w, 3);
        w = accepted(w, 4);
        assertTrue(w.accept(3).isEmpty());
        assertEquals(5, w.highest());
    }

    @Test
    void aCountFarBelowTheHighestIsRefused() {
        NonceCountWindow w = accepted(NonceCountWindow.EMPTY, 100);
        assertTrue(w.accept(100 - 64).isEmpty());
        assertTrue(w.accept(100 - 63).isPresent());
    }

    @Test
    void aLongJumpForgetsTheOldCounts() {
        NonceCountWindow w = accepted(accepted(NonceCountWindow.EMPTY, 1), 1000);
        assertEquals(1, w.seen());
        assertTrue(w.accept(999).isPresent());
    }

    @Test
    void zeroAndCountsBeyondEightHexDigitsAreRefused() {
        assertTrue(NonceCountWindow.EMPTY.accept(0).isEmpty());
        assertTrue(NonceCountWindow.EMPTY.accept(0x1_0000_0000L).isEmpty());
    }

    @Test
    void encodedWindowReadsBackAndGarbageRefusesEverything() {
        NonceCountWindow w = accepted(accepted(NonceCountWindow.EMPTY, 7), 9);
        assertEquals(w, NonceCountWindow.decode(w.encode()));
        assertTrue(NonceCountWindow.decode(new byte[3]).accept(12345).isEmpty());
    }

    @Test
    void ncIsEightHexDigits() {
        assertEquals(1, NonceCountWindow.parse("00000001"));
        assertEquals(0xabcdef12L, NonceCountWindow.parse("ABCDEF12"));
        assertEquals(-1, NonceCountWindow.parse("1"));
        assertEquals(-1, NonceCountWindow.parse("0000000g"));
    }
}
