package org.p2psip.balancer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.function.LongPredicate;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;

/** The ramp itself: pure arithmetic on nanoTime values. */
class SlowStartTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long T0 = 5_000 * SECOND;

    private final NodeSet nodes = new NodeSet(List.of(HostPort.parse("127.0.0.1:5061"),
            HostPort.parse("127.0.0.1:5062"), HostPort.parse("127.0.0.1:5063")));
    private final SlowStart ramp = new SlowStart(3, Duration.ofSeconds(10));

    private NodeSet.Node node(int i) {
        return nodes.all().get(i);
    }

    @Test
    void theShareGrowsLinearlyFromATenthToAllOverTheWindow() {
        ramp.begin(1, T0);

        assertEquals(0.1, ramp.share(1, T0), 1e-9);
        assertEquals(0.55, ramp.share(1, T0 + 5 * SECOND), 1e-9);
        assertEquals(0.91, ramp.share(1, T0 + 9 * SECOND), 1e-9);
        assertEquals(1.0, ramp.share(1, T0 + 10 * SECOND));
        assertEquals(1.0, ramp.share(0, T0), "a node that never ramped has its full share");
        assertEquals(0.1, ramp.share(1, T0 - SECOND), 1e-9, "a clock read just before the ramp began");
    }

    @Test
    void aRampEndsOnceAndIsThenForgotten() {
        ramp.begin(2, T0);

        assertFalse(ramp.finish(2, T0 + 10 * SECOND - 1));
        assertTrue(ramp.finish(2, T0 + 10 * SECOND));
        assertFalse(ramp.finish(2, T0 + 11 * SECOND), "its end is told once");
        assertEquals(1.0, ramp.share(2, T0 + 11 * SECOND));
    }

    @Test
    void aCancelledRampHasNoEndToTell() {
        ramp.begin(0, T0);
        ramp.cancel(0);

        assertFalse(ramp.finish(0, T0 + 20 * SECOND));
        assertEquals(1.0, ramp.share(0, T0 + SECOND), "a node that is not ramping has no ramp to be held to");
    }

    @Test
    void routingMaySkipEveryCheckWhenNoRampRuns() {
        assertTrue(ramp.quiet(T0), "no ramp yet");
        ramp.begin(0, T0);
        assertFalse(ramp.quiet(T0 + 9 * SECOND));
        assertTrue(ramp.quiet(T0 + 10 * SECOND));
    }

    @Test
    void aZeroWindowTurnsSlowStartOff() {
        SlowStart off = SlowStart.off(3);
        off.begin(0, T0);

        assertEquals(1.0, off.share(0, T0));
        assertTrue(off.quiet(T0));
        assertFalse(off.finish(0, T0), "no ramp, so no end to tell");
        assertThrows(IllegalArgumentException.class, () -> new SlowStart(3, Duration.ofSeconds(-1)));
    }

    @Test
    void aKeyGivenToARampingNodeStaysWithItAsTheShareGrows() {
        ramp.begin(0, T0);
        int admittedEarly = 0;
        for (long key = 0; key < 5_000; key++) {
            long k = Fnv.mix(key);
            boolean early = ramp.admits(node(0), k, T0 + SECOND);
            if (early) {
                admittedEarly++;
                assertTrue(ramp.admits(node(0), k, T0 + 6 * SECOND), "key " + key + " moved away again");
            }
            assertEquals(early, ramp.admits(node(0), k, T0 + SECOND), "the same key, the same decision");
        }
        // A share of 0.19 of 5,000 keys: 950 expected, far from both 0 and 5,000.
        assertTrue(admittedEarly > 800 && admittedEarly < 1_100, "admitted " + admittedEarly);
    }

    @Test
    void theNodesARequestSkipsGoLastInTheirOwnOrder() {
        ramp.begin(0, T0);
        ramp.begin(2, T0);
        List<NodeSet.Node> ranked = List.of(node(2), node(0), node(1));
        long key = skippedByBoth(ranked);

        assertEquals(List.of(node(1), node(2), node(0)), ramp.order(ranked, key, key, T0));
    }

    @Test
    void theFirstCandidateIsDrawnByItsOwnKey() {
        ramp.begin(0, T0);
        List<NodeSet.Node> ranked = List.of(node(0), node(1));
        long admitted = firstKey(k -> ramp.admits(node(0), k, T0));
        long skipped = firstKey(k -> !ramp.admits(node(0), k, T0));

        assertEquals(node(0), ramp.order(ranked, admitted, skipped, T0).get(0));
        assertEquals(node(1), ramp.order(ranked, skipped, admitted, T0).get(0));
    }

    private long skippedByBoth(List<NodeSet.Node> ranked) {
        return firstKey(k -> !ramp.admits(ranked.get(0), k, T0) && !ramp.admits(ranked.get(1), k, T0));
    }

    private static long firstKey(LongPredicate p) {
        for (long key = 1; ; key++) {
            long k = Fnv.mix(key);
            if (p.test(k)) {
                return k;
            }
        }
    }
}
