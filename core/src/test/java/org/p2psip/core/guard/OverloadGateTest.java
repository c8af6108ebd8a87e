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
    void anOldQueueHeadRefusesNewRequests() {
        OverloadGate gate = new OverloadGate(Duration.ofMillis(100), 10_000);
        assertFalse(gate.admit(101 * MS, 1, 0));
    }

    @Test
    void aDeepQueueRefusesEvenWhenFresh() {
        OverloadGate gate = new OverloadGate(Duration.ofMillis(100), 10_000);
        assertFalse(gate.admit(0, 10_000, 0));
    }

    @Test
    void theReductionAsksForTheRefusedShareWithHeadroom() {
        OverloadGate gate = new OverloadGate(Duration.ofMillis(100), 10_000);
        for (int i = 0; i < 100; i++) {
            gate.admit(i < 30 ? 500 * MS : 0, 1, i * MS);
        }
        assertEquals(0, gate.reductionPercent(999 * MS));
        assertEquals(40, gate.reductionPercent(1_000 * MS));
    }

    @Test
    void theReductionEndsOnceNothingIsRefused() {
        OverloadGate gate = new OverloadGate(Duration.ofMillis(100), 10_000);
        gate.admit(500 * MS, 1, 0);
        assertEquals(100, gate.reductionPercent(1_000 * MS));
        gate.admit(0, 1, 1_500 * MS);
        assertEquals(0, gate.reductionPercent(2_000 * MS));
    }

    @Test
    void aQuietSpellResetsTheReduction() {
        OverloadGate gate = new OverloadGate(Duration.ofMillis(100), 10_000);
        gate.admit(500 * MS, 1, 0);
        assertEquals(0, gate.reductionPercent(5_000 * MS));
    }
}
