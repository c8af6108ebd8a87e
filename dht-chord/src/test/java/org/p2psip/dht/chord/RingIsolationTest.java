package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.List;

import org.junit.jupiter.api.Test;

class RingIsolationTest {

    private final RingIsolation isolation = new RingIsolation();

    private static NodeRef node(int id) {
        return new NodeRef(BigInteger.valueOf(id), SimulatedNetwork.address(id));
    }

    @Test
    void aNodeThatStartedTheRingIsAloneAndServes() {
        assertFalse(isolation.noSuccessor(), "never had a successor: not cut off");
        assertTrue(isolation.servesAlone());
    }

    @Test
    void losingEverySuccessorCutsANodeOffOnce() {
        isolation.inRing(List.of(node(2), node(3)));
        assertTrue(isolation.noSuccessor());
        assertFalse(isolation.noSuccessor(), "already cut off");
        assertTrue(isolation.cutOff());
        assertFalse(isolation.servesAlone());
    }

    @Test
    void aNodeWhoseRingWasOneOtherGivesUpAfterItsPatience() {
        isolation.inRing(List.of(node(2)));
        isolation.noSuccessor();
        for (int round = 1; round < RingIsolation.PATIENCE; round++) {
            assertEquals(0, isolation.roundStarted(), "round " + round);
        }
        assertEquals(RingIsolation.PATIENCE, isolation.roundStarted());
        assertTrue(isolation.servesAlone());
    }

    @Test
    void aNodeThatKnewTwoOthersNeverGivesUp() {
        isolation.inRing(List.of(node(2), node(3)));
        isolation.noSuccessor();
        for (int round = 1; round <= 10 * RingIsolation.PATIENCE; round++) {
            assertEquals(0, isolation.roundStarted(), "round " + round);
        }
        assertFalse(isolation.servesAlone());
        assertEquals(List.of(node(2), node(3)), isolation.formerSuccessors());
    }

    @Test
    void findingTheRingAgainEndsTheIsolation() {
        isolation.inRing(List.of(node(2), node(3)));
        isolation.noSuccessor();
        isolation.inRing(List.of(node(3)));
        assertFalse(isolation.cutOff());
        assertEquals(List.of(node(3)), isolation.formerSuccessors());
    }

    @Test
    void theLastMemberLeavingGracefullyLeavesNobodyToRejoin() {
        isolation.inRing(List.of(node(2)));
        isolation.lastMemberLeft();
        assertTrue(isolation.servesAlone());
        assertEquals(List.of(), isolation.formerSuccessors());
    }
}
