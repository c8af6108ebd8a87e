package org.p2psip.loadtest.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class OpenLoopPacerTest {

    private static final long S = 1_000_000_000L;

    @Test
    void requestsFallDueAtTheRateFromTheStart() {
        OpenLoopPacer p = new OpenLoopPacer(10 * S, 1000, 1_000_000, 60 * S);
        assertEquals(0, p.dueBy(10 * S - 1));
        assertEquals(1, p.dueBy(10 * S), "request 0 at the start");
        assertEquals(1, p.dueBy(10 * S + 999_999));
        assertEquals(2, p.dueBy(10 * S + 1_000_000));
        assertEquals(1000, p.dueBy(11 * S - 1));
        assertEquals(10 * S + 5_000_000, p.dueAt(5));
    }

    @Test
    void boundedByCountAndByDuration() {
        OpenLoopPacer byCount = new OpenLoopPacer(0, 100, 50, 60 * S);
        assertEquals(50, byCount.dueBy(10 * S));
        assertTrue(byCount.finished(50, S));
        assertFalse(byCount.finished(49, S));

        OpenLoopPacer byTime = new OpenLoopPacer(0, 100, 1_000_000, 2 * S);
        assertEquals(200, byTime.dueBy(100 * S), "nothing is due at or after the end");
        assertTrue(byTime.finished(200, 2 * S));
    }

    @Test
    void lagIsHowLateARequestIsSent() {
        OpenLoopPacer p = new OpenLoopPacer(0, 10, 100, 60 * S);
        assertEquals(0, p.lagNanos(3, S / 10));
        assertEquals(S / 2, p.lagNanos(1, S / 10 + S / 2));
    }

    @Test
    void rejectsNonsense() {
        assertThrows(IllegalArgumentException.class, () -> new OpenLoopPacer(0, 0, 1, S));
        assertThrows(IllegalArgumentException.class, () -> new OpenLoopPacer(0, 1, -1, S));
    }
}
