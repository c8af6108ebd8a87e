package org.p2psip.core.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class OverloadGateTest {

    private static final long MS = 1_000_000L;

    @Test
    void aQueueWithinItsDelayAdmits() {
        OverloadGate gate = new OverloadGate(Duration.ofMillis(100), 10_000);
        assertTrue(gate.admit(100 * MS, 500, 0));
    }

    @Test
    void aQueueHeadOldForHalfTheBoundAgainRefusesNewRequests() {
        OverloadGate gate = new OverloadGate(Duration.ofMillis(100), 10_000);
        assertTrue(gate.admit(101 * MS, 1, 0), "a delay just seen may be a pause that is draining");
        assertTrue(gate.admit(140 * MS, 1, 49 * MS));
        assertFalse(gate.admit(150 * MS, 1, 50 * MS));
        assertFalse(gate.admit(300 * MS, 1, 400 * MS));
    }

    @Test
    void aDelayThatDrainsInTimeRefusesNothing() {
        OverloadGate gate = new OverloadGate(Duration.ofMillis(100), 10_000);
        assertTrue(gate.admit(180 * MS, 1, 0));
        assertTrue(gate.admit(3 * MS, 1, 30 * MS));
        assertTrue(gate.admit(120 * MS, 1, 60 * MS), "a new spell of delay starts its own clock");
        assertTrue(gate.admit(130 * MS, 1, 100 * MS));
        assertFalse(gate.admit(170 * MS, 1, 110 * MS));
    }

    @Test
    void aRequestInsideADialogIsQueuedWhileTheDelayRefusesNewOnes() {
        OverloadGate gate = new OverloadGate(Duration.ofMillis(100), 10_000);
        gate.admit(500 * MS, 1, 0);
        assertFalse(gate.admit(500 * MS, 1, 60 * MS), "a new request, late for half the bound again");
        assertTrue(gate.admit(500 * MS, 1, 61 * MS, true), "a BYE finishes work the node took on");
        assertFalse(gate.admit(500 * MS, 1, 62 * MS, false));
    }

    @Test
    void aFullQueueRefusesARequestInsideADialogToo() {
        OverloadGate gate = new OverloadGate(Duration.ofMillis(100), 10_000);
        assertTrue(gate.admit(0, 9_999, 0, true));
        assertFalse(gate.admit(0, 10_000, 0, true));
    }

    @Test
    void aDeepQueueRefusesEvenWhenFresh() {
        OverloadGate gate = new OverloadGate(Duration.ofMillis(100), 10_000);
        assertFalse(gate.admit(0, 10_000, 0));
    }

    @Test
    void theReductionAsksForTheRefusedShareWithHeadroom() {
        OverloadGate gate = new OverloadGate(Duration.ofMillis(100), 10_000);
        // Delayed from 0 to 79 ms: refused from 50 ms on, 30 of 100.
        for (int i = 0; i < 100; i++) {
            gate.admit(i < 80 ? 500 * MS : 0, 1, i * MS);
        }
        assertEquals(0, gate.reductionPercent(999 * MS));
        assertEquals(40, gate.reductionPercent(1_000 * MS));
    }

    @Test
    void theReductionEndsOnceNothingIsRefused() {
        OverloadGate gate = new OverloadGate(Duration.ofMillis(100), 10_000);
        gate.admit(500 * MS, 1, 0);
        gate.admit(500 * MS, 1, 50 * MS);
        assertEquals(60, gate.reductionPercent(1_000 * MS));
        gate.admit(0, 1, 1_500 * MS);
        assertEquals(0, gate.reductionPercent(2_000 * MS));
    }

    @Test
    void aQuietSpellResetsTheReduction() {
        OverloadGate gate = new OverloadGate(Duration.ofMillis(100), 10_000);
        gate.admit(500 * MS, 1, 0);
        gate.admit(500 * MS, 1, 50 * MS);
        assertEquals(0, gate.reductionPercent(5_000 * MS));
    }
}
