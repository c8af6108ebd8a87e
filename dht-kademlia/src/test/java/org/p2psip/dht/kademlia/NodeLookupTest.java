package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;

/**
 * The lookup state machine on an 8-bit id space, messages delivered by hand,
 * then whole lookups over an in-memory overlay with crashed nodes.
 */
class NodeLookupTest {

    private static final IdSpace SPACE = new IdSpace(8);

    private static Contact c(int id) {
        return new Contact(BigInteger.valueOf(id), new HostPort("127.0.0.1", 1000 + id), Optional.empty());
    }

    private static List<Integer> ids(List<Contact> contacts) {
        return contacts.stream().map(x -> x.id().intValue()).toList();
    }

    @Test
    void keepsAtMostAlphaInFlightClosestFirst() {
        NodeLookup lookup = new NodeLookup(SPACE, BigInteger.ZERO, BigInteger.valueOf(0x10), 4, 3,
                List.of(c(0x80), c(0x11), c(0x40), c(0x13), c(0x20)));
        assertEquals(List.of(0x11, 0x13, 0x20), ids(lookup.nextQueries()));
        assertEquals(List.of(), lookup.nextQueries(), "alpha = 3 are already in flight");
        lookup.onFailure(c(0x13));
        assertEquals(List.of(0x40), ids(lookup.nextQueries()));
        assertFalse(lookup.isDone());
    }

    @Test
    void closerContactsFromAnswersAreQueriedNextAndDepthCountsRounds() {
        NodeLookup lookup = new NodeLookup(SPACE, BigInteger.ZERO, BigInteger.valueOf(0x10), 2, 1,
                List.of(c(0x80), c(0x40)));
        assertEquals(List.of(0x40), ids(lookup.nextQueries()));
        lookup.onAnswer(c(0x40), List.of(c(0x18), c(0x30)), Optional.empty());
        assertEquals(List.of(0x18), ids(lookup.nextQueries()));
        lookup.onAnswer(c(0x18), List.of(c(0x11), c(0x40)), Optional.empty());
        assertEquals(List.of(0x11), ids(lookup.nextQueries()));
        lookup.onAnswer(c(0x11), List.of(), Optional.empty());
        // 0x11 and 0x18 are the 2 closest and both answered: converged, 0x30 and 0x80 never asked.
        assertTrue(lookup.isDone());
        assertEquals(List.of(), lookup.nextQueries());
        assertEquals(List.of(0x11, 0x18), ids(lookup.closestAnswered()));
        assertEquals(3, lookup.rounds());
        assertEquals(3, lookup.queries());
    }

    @Test
    void failedContactsLeaveTheShortlistSoTheNextClosestMustAnswer() {
        NodeLookup lookup = new NodeLookup(SPACE, BigInteger.ZERO, BigInteger.valueOf(0x10), 2, 3,
                List.of(c(0x11), c(0x12), c(0x40)));
        assertEquals(List.of(0x11, 0x12), ids(lookup.nextQueries()));
        lookup.onAnswer(c(0x11), List.of(), Optional.empty());
        lookup.onFailure(c(0x12));
        assertFalse(lookup.isDone(), "0x40 is now among the 2 closest live and has not answered");
        assertEquals(List.of(0x40), ids(lookup.nextQueries()));
        lookup.onAnswer(c(0x40), List.of(c(0x12)), Optional.empty());
        assertTrue(lookup.isDone(), "a failed contact named again is not retried");
        assertEquals(List.of(0x11, 0x40), ids(lookup.closestAnswered()));
        assertEquals(List.of(0x12), ids(lookup.failed()));
    }

    @Test
    void findValueKeepsTheHighestVersionAnyReplicaReturned() {
        NodeLookup lookup = new NodeLookup(SPACE, BigInteger.ZERO, BigInteger.valueOf(0x10), 3, 3,
                List.of(c(0x11), c(0x12), c(0x13)));
        lookup.nextQueries();
        lookup.onAnswer(c(0x11), List.of(), Optional.of(new StoredValue(new byte[] {1}, 5, 100, false, 1)));
        lookup.onAnswer(c(0x12), List.of(), Optional.of(new StoredValue(new byte[] {2}, 9, 100, false, 2)));
        lookup.onAnswer(c(0x13), List.of(), Optional.of(new StoredValue(new byte[] {3}, 7, 100, false, 3)));
        assertTrue(lookup.isDone());
        assertEquals(9, lookup.bestValue().orElseThrow().version());
    }

    @Test
    void lookupsOverAnInMemoryOverlayFindTheTrueClosestNodeEvenAfterCrashes() {
        SimulatedOverlay overlay = new SimulatedOverlay(SPACE, 4, 3, 42);
        BigInteger first = overlay.join(overlay.freshId(), Optional.empty());
        for (int i = 1; i < 60; i++) {
            overlay.advance(10);
            overlay.join(overlay.freshId(), Optional.of(first));
        }
        List<BigInteger> victims = new ArrayList<>(overlay.aliveIds().subList(10, 25));
        victims.forEach(overlay::crash);
        int maxRounds = 0;
        for (int target = 0; target < 256; target += 3) {
            BigInteger from = overlay.aliveIds().get(target % overlay.aliveIds().size());
            SimulatedOverlay.Outcome outcome = overlay.lookup(from, BigInteger.valueOf(target));
            assertTrue(outcome.foundClosest(), "lookup of " + target + " from " + from + " missed the closest node");
            assertTrue(outcome.closest().stream().allMatch(x -> overlay.isAlive(x.id())));
            maxRounds = Math.max(maxRounds, outcome.rounds());
        }
        assertTrue(maxRounds <= 8, "an 8-bit space needs at most a handful of rounds, not " + maxRounds);
    }

    @Test
    void theSimulationsJudgeOfTheClosestNodeAgreesWithBruteForce() {
        SimulatedOverlay overlay = new SimulatedOverlay(SPACE, 4, 3, 7);
        overlay.populate(40);
        overlay.crash(overlay.aliveIds().get(3));
        for (int target = 0; target < 256; target++) {
            BigInteger t = BigInteger.valueOf(target);
            BigInteger brute = overlay.aliveIds().stream().min(java.util.Comparator.comparing(id -> id.xor(t)))
                    .orElseThrow();
            assertEquals(brute, overlay.trueClosest(t), "closest to " + target);
        }
    }
}
