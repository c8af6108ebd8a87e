package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.SchedulingLag;

/** Strikes, suspicion and probing, with time passed in: no sockets, no clocks. */
class ContactHealthTest {

    private static final long WINDOW = 2_000;

    private final ContactHealth health = new ContactHealth(3, WINDOW);

    private static Contact c(int id) {
        return new Contact(BigInteger.valueOf(id), new HostPort("127.0.0.1", 1000 + id), Optional.empty());
    }

    @Test
    void aContactIsStruckOffOnlyByThreeFailuresInARowSpanningTheWindow() {
        assertFalse(health.strike(c(1).id(), true, 0));
        assertFalse(health.strike(c(1).id(), true, 1_000));
        assertTrue(health.strike(c(1).id(), true, WINDOW));
        assertFalse(health.strike(c(1).id(), true, WINDOW), "the count starts over");
    }

    @Test
    void timeoutsThatLandTogetherDoNotWriteOffALoadedContact() {
        for (int i = 0; i < 10; i++) {
            assertFalse(health.strike(c(1).id(), true, 5_000 + i), "failure " + (i + 1) + " within one RPC timeout");
        }
        assertTrue(health.strike(c(1).id(), true, 5_000 + WINDOW), "still silent a window after the first");
    }

    @Test
    void hearingFromAContactWipesItsStrikes() {
        health.strike(c(1).id(), true, 0);
        health.strike(c(1).id(), true, 1_000);
        health.heardFrom(c(1).id());
        assertFalse(health.strike(c(1).id(), true, 2_500));
        assertFalse(health.strike(c(1).id(), true, 3_000));
        assertFalse(health.strike(c(1).id(), true, 4_000), "its silence began at 2,500");
        assertTrue(health.strike(c(1).id(), true, 4_500));
    }

    @Test
    void aSuspicionLastsThirtySecondsUnlessTheContactSpeaks() {
        health.suspect(c(1), 1_000);
        health.suspect(c(2), 1_000);
        assertTrue(health.isSuspected(c(1).id(), 1_000 + ContactHealth.SUSPECT_MILLIS));
        assertFalse(health.isSuspected(c(1).id(), 1_001 + ContactHealth.SUSPECT_MILLIS));
        health.heardFrom(c(2).id());
        assertFalse(health.isSuspected(c(2).id(), 1_000));
        assertFalse(health.isSuspected(c(3).id(), 1_000), "never suspected");
    }

    @Test
    void othersNeededCountsSuspectsUntilTheirSuspicionLapses() {
        assertEquals(0, health.othersNeeded(0, 0), "alone, and knowing it");
        health.suspect(c(1), 0);
        assertEquals(1, health.othersNeeded(0, ContactHealth.SUSPECT_MILLIS));
        assertEquals(0, health.othersNeeded(0, ContactHealth.SUSPECT_MILLIS + 1));
        assertFalse(health.anySuspected());
    }

    @Test
    void theSuspectsAreThoseNotYetLapsedNorHeardFrom() {
        health.suspect(c(1), 0);
        health.suspect(c(2), 10_000);
        health.suspect(c(3), 10_000);
        health.heardFrom(c(3).id());
        assertEquals(List.of(c(1), c(2)), health.suspects(ContactHealth.SUSPECT_MILLIS).stream()
                .sorted(Comparator.comparing(Contact::id)).toList());
        assertEquals(List.of(c(2)), health.suspects(ContactHealth.SUSPECT_MILLIS + 1), "c(1)'s suspicion lapsed");
    }

    @Test
    void othersNeededIsCappedByTheReplicasBesidesThisNode() {
        assertEquals(1, health.othersNeeded(1, 0));
        assertEquals(2, health.othersNeeded(2, 0));
        assertEquals(2, health.othersNeeded(19, 0));
        assertEquals(0, new ContactHealth(1, WINDOW).othersNeeded(19, 0));
    }

    @Test
    void probesGoToTheSuspectsProbedLongestAgo() {
        health.suspect(c(1), 0);
        health.suspect(c(2), 10);
        health.suspect(c(3), 20);
        assertEquals(List.of(c(1)), health.nextProbes(1, 100));
        assertEquals(List.of(c(2)), health.nextProbes(1, 200));
        assertEquals(List.of(c(3)), health.nextProbes(1, 300));
        assertEquals(List.of(c(1), c(2)), health.nextProbes(2, 400));
        List<Contact> all = health.nextProbes(5, 500);
        assertEquals(3, all.size());
        assertEquals(c(3), all.get(0));
    }

    @Test
    void probingDoesNotProlongASuspicion() {
        health.suspect(c(1), 0);
        health.nextProbes(3, 20_000);
        assertTrue(health.isSuspected(c(1).id(), ContactHealth.SUSPECT_MILLIS));
        assertFalse(health.isSuspected(c(1).id(), ContactHealth.SUSPECT_MILLIS + 1));
    }

    @Test
    void lapsedSuspectsAreNotProbed() {
        health.suspect(c(1), 0);
        health.suspect(c(2), 20_000);
        assertEquals(List.of(c(2)), health.nextProbes(3, ContactHealth.SUSPECT_MILLIS + 1));
        assertTrue(health.anySuspected());
    }

    @Test
    void timeoutsWhileSelfLagsDoNotWriteOffPeer() {
        SchedulingLag lag = new SchedulingLag(0, 60_000_000_000L);
        ContactHealth aware = new ContactHealth(3, WINDOW, 1_000, lag);
        lag.due(0);
        for (long t = 1_000; t <= 10_000; t += 500) {
            assertFalse(aware.strike(c(1).id(), true, t), "a timeout at " + t + " ms while this node is behind");
        }
        assertTrue(aware.lagExcuses(10_000));
    }

    @Test
    void refusalsAreNotExcusedByLag() {
        SchedulingLag lag = new SchedulingLag(0, 60_000_000_000L);
        ContactHealth aware = new ContactHealth(3, WINDOW, 1_000, lag);
        lag.due(0);
        assertFalse(aware.strike(c(1).id(), false, 1_000));
        assertFalse(aware.strike(c(1).id(), false, 2_000));
        assertTrue(aware.strike(c(1).id(), false, 3_000));
    }
}
