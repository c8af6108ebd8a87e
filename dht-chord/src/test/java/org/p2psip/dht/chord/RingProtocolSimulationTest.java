package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;

/**
 * Zave's protocol on a 6-bit circle over the in-memory network: joins,
 * crashes and stabilization rounds, with her invariants checked after every
 * step and the ideal ring reached once churn stops.
 */
class RingProtocolSimulationTest {

    private static final IdSpace SPACE = new IdSpace(6);
    private static final int R = 3;

    private final SimulatedNetwork net = new SimulatedNetwork(SPACE, R);

    private RingMaintenance add(int id) {
        return net.add(BigInteger.valueOf(id), SimulatedNetwork.address(id));
    }

    private void assertInvariants(String when) {
        List<String> v = RingInvariants.violations(net.liveStates());
        assertTrue(v.isEmpty(), when + ": " + v);
    }

    private void stabilizeUntilIdeal(int maxRounds) {
        for (int round = 0; round < maxRounds; round++) {
            if (RingInvariants.idealViolations(net.liveStates()).isEmpty()) {
                return;
            }
            net.stabilizeRound();
            assertInvariants("after round " + round);
        }
        assertEquals(List.of(), RingInvariants.idealViolations(net.liveStates()), "not ideal after " + maxRounds);
    }

    private void assertLookupsFindTheTrueOwner() {
        TreeMap<BigInteger, NodeRef> sorted = new TreeMap<>();
        net.liveStates().forEach(s -> sorted.put(s.self().id(), s.self()));
        for (RingMaintenance m : net.live()) {
            m.fixAllFingers().join();
        }
        for (RingMaintenance m : net.live()) {
            for (int k = 0; k < 64; k++) {
                BigInteger key = BigInteger.valueOf(k);
                assertEquals(RingInvariants.owner(sorted, key), m.lookup(key).join().owner(),
                        "lookup of " + k + " from " + m.state().self());
            }
        }
    }

    @Test
    void nodesJoiningOneByOneThroughTheFirstFormTheIdealRing() {
        RingMaintenance first = add(7);
        int[] ids = {40, 22, 60, 1, 33, 15, 50};
        for (int id : ids) {
            add(id).join(first.state().self()).join();
            assertInvariants("after join of " + id);
            stabilizeUntilIdeal(20);
        }
        assertLookupsFindTheTrueOwner();
    }

    @Test
    void manyConcurrentJoinsIntoOneGapConverge() {
        RingMaintenance a = add(0);
        RingMaintenance b = add(32);
        b.join(a.state().self()).join();
        stabilizeUntilIdeal(10);
        // Every joiner lands between 0 and 32 before anyone stabilizes.
        for (int id = 3; id < 32; id += 4) {
            add(id).join(b.state().self()).join();
            assertInvariants("after join of " + id);
        }
        stabilizeUntilIdeal(40);
        assertLookupsFindTheTrueOwner();
    }

    @Test
    void upToRMinusOneAdjacentCrashesKeepOneOrderedRing() {
        RingMaintenance first = add(0);
        for (int id = 4; id < 64; id += 6) {
            add(id).join(first.state().self()).join();
            net.stabilizeRound();
        }
        stabilizeUntilIdeal(40);
        // R - 1 = 2 adjacent nodes at once, then stabilize.
        net.crash(SimulatedNetwork.address(10));
        net.crash(SimulatedNetwork.address(16));
        assertInvariants("right after the crashes");
        stabilizeUntilIdeal(20);
        assertLookupsFindTheTrueOwner();
    }

    @Test
    void seededChurnNeverBreaksTheInvariants() {
        Random random = new Random(6);
        List<Integer> free = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            free.add(i);
        }
        Collections.shuffle(free, random);
        RingMaintenance first = add(free.remove(0));
        List<HostPort> members = new ArrayList<>(List.of(first.state().self().overlay()));
        for (int step = 0; step < 300; step++) {
            boolean join = members.size() < 4 || (members.size() < 40 && random.nextInt(3) > 0);
            if (join && !free.isEmpty()) {
                int id = free.remove(0);
                HostPort via = members.get(random.nextInt(members.size()));
                add(id).join(net.node(via).state().self()).join();
                members.add(SimulatedNetwork.address(id));
            } else if (!join && members.size() > 4) {
                // One crash at a time, with a round in between, stays within what r = 3 tolerates.
                HostPort victim = members.remove(random.nextInt(members.size()));
                net.crash(victim);
            }
            net.stabilizeRound();
            assertInvariants("churn step " + step);
        }
        stabilizeUntilIdeal(60);
        assertLookupsFindTheTrueOwner();
    }
}
