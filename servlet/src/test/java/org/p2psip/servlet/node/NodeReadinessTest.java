package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class NodeReadinessTest {

    @Test
    void aWarmingNodeIsNotReadyAndHasNoTimeToReady() {
        NodeReadiness r = NodeReadiness.warming(1_000);

        assertFalse(r.isReady());
        assertEquals(Optional.empty(), r.timeToReady());
    }

    @Test
    void timeToReadyRunsFromTheStartToTheFirstMark() {
        NodeReadiness r = NodeReadiness.warming(1_000);

        r.markReady(5_000_001_000L);
        r.markReady(9_000_000_000L);

        assertTrue(r.isReady());
        assertEquals(Optional.of(Duration.ofSeconds(5)), r.timeToReady());
    }

    @Test
    void anImmediatelyReadyNodeTookNoTime() {
        assertEquals(Optional.of(Duration.ZERO), NodeReadiness.immediately(42).timeToReady());
    }
}
