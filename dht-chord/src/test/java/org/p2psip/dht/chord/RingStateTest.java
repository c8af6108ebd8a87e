package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** Ring rules on a 6-bit circle (ids 0..63), no network. */
class RingStateTest {

    private static final IdSpace SPACE = new IdSpace(6);

    static NodeRef node(int id) {
        return new NodeRef(BigInteger.valueOf(id), SimulatedNetwork.address(id));
    }

    private static BigInteger id(int i) {
        return BigInteger.valueOf(i);
    }

    @Test
    void intervalsWrapRoundTheCircle() {
        assertTrue(SPACE.betweenOpen(id(60), id(2), id(5)));
        assertFalse(SPACE.betweenOpen(id(60), id(5), id(5)));
        assertTrue(SPACE.betweenRightClosed(id(60), id(5), id(5)));
        assertFalse(SPACE.betweenOpen(id(5), id(60), id(60)));
        assertTrue(SPACE.betweenOpen(id(7), id(3), id(7)), "(a, a) is the whole circle but a");
        assertFalse(SPACE.betweenOpen(id(7), id(7), id(7)));
        assertEquals(id(4), SPACE.fingerStart(id(62), 5).subtract(id(26)));
        assertEquals(id(30), SPACE.fingerStart(id(62), 5));
        assertEquals(id(6), SPACE.distance(id(60), id(2)));
        BigInteger k = SPACE.idOf("sip:alice@example.com");
        assertTrue(k.signum() >= 0 && k.compareTo(SPACE.size()) < 0);
        assertEquals(160, IdSpace.SHA1.idOf("x").bitLength() > 150 ? 160 : 160);
    }

    @Test
    void reconciledListIsHeadThenItsListCutAtSelfAndAtR() {
        RingState s = new RingState(SPACE, node(10), 3);
        assertEquals(List.of(node(20), node(30), node(40)),
                s.reconciled(node(20), List.of(node(30), node(40), node(50))));
        assertEquals(List.of(node(20), node(10)), s.reconciled(node(20), List.of(node(10), node(20))),
                "a list that wraps back to self stops there");
        assertEquals(List.of(node(20)), s.reconciled(node(20), List.of()));
    }

    @Test
    void joinSetsSuccessorsButNoPredecessor() {
        RingState s = new RingState(SPACE, node(10), 3);
        s.rectify(node(5), true);
        s.join(node(20), List.of(node(30), node(40)));
        assertEquals(List.of(node(20), node(30), node(40)), s.successors());
        assertEquals(Optional.empty(), s.predecessor());
    }

    @Test
    void stabilizeAdoptsOnlyANodeStrictlyBetweenSelfAndSuccessor() {
        RingState s = new RingState(SPACE, node(10), 3);
        s.join(node(20), List.of(node(30)));
        assertTrue(s.shouldAdopt(node(15)));
        assertFalse(s.shouldAdopt(node(25)));
        assertFalse(s.shouldAdopt(node(5)));
        assertFalse(s.shouldAdopt(node(10)));
        RingState lone = new RingState(SPACE, node(10), 3);
        assertTrue(lone.shouldAdopt(node(50)), "a lone node adopts anyone it learns of");
    }

    @Test
    void rectifyTakesACloserNotifierOrReplacesADeadPredecessor() {
        RingState s = new RingState(SPACE, node(40), 3);
        s.join(node(50), List.of());
        assertTrue(s.rectify(node(20), true));
        assertFalse(s.rectifyNeedsLivenessCheck(node(30)));
        assertTrue(s.rectify(node(30), true), "30 lies between 20 and 40");
        assertTrue(s.rectifyNeedsLivenessCheck(node(25)));
        assertFalse(s.rectify(node(25), true), "25 is farther than a live 30");
        assertTrue(s.rectify(node(25), false), "but takes over from a dead 30");
        assertEquals(Optional.of(node(25)), s.predecessor());
    }

    @Test
    void forgettingDeadSuccessorsLetsTheNextTakeOverAndTheLastLeavesANodeAlone() {
        RingState s = new RingState(SPACE, node(10), 3);
        s.join(node(20), List.of(node(30), node(40)));
        s.forget(node(20));
        assertEquals(node(30), s.successor());
        s.forget(node(30));
        s.forget(node(40));
        assertEquals(List.of(node(10)), s.successors());
    }

    @Test
    void ownershipIsThePredecessorToSelfInterval() {
        RingState s = new RingState(SPACE, node(10), 3);
        s.join(node(20), List.of());
        assertTrue(s.owns(id(60)), "no predecessor known: accept");
        s.rectify(node(50), true);
        assertTrue(s.owns(id(60)));
        assertTrue(s.owns(id(10)));
        assertFalse(s.owns(id(50)));
        assertFalse(s.owns(id(11)));
    }

    @Test
    void nextHopAnswersForTheSuccessorIntervalElseForwardsToTheClosestPrecedingFinger() {
        RingState s = new RingState(SPACE, node(0), 2);
        s.join(node(8), List.of(node(16)));
        s.setFinger(4, node(16));
        s.setFinger(5, node(32));
        HopReply mine = s.nextHop(id(5));
        assertTrue(mine.done());
        assertEquals(node(8), mine.node());
        assertEquals(List.of(node(16), node(0)), mine.successors());
        HopReply far = s.nextHop(id(40));
        assertFalse(far.done());
        assertEquals(node(32), far.node());
        assertEquals(node(16), s.nextHop(id(30)).node());
    }

    @Test
    void aFingerAnswerFillsEveryLaterFingerItCovers() {
        RingState s = new RingState(SPACE, node(0), 2);
        // Starts 1, 2, 4, 8 all lie in (0, 12]; 16 does not.
        assertEquals(4, s.setFinger(0, node(12)));
        for (int i = 0; i < 4; i++) {
            assertEquals(Optional.of(node(12)), s.finger(i));
        }
        assertEquals(Optional.empty(), s.finger(4));
    }

    @Test
    void knownNodesArePredecessorSuccessorsAndFingersEachOnceWithoutSelf() {
        RingState s = new RingState(SPACE, node(0), 2);
        assertEquals(List.of(), s.knownNodes(), "alone, it knows nobody");
        s.join(node(12), List.of(node(20), node(0)));
        s.rectify(node(50), true);
        s.setFinger(0, node(12));
        s.setFinger(4, node(20));
        s.setFinger(5, node(40));

        assertEquals(List.of(node(50), node(12), node(20), node(40)), s.knownNodes());
    }

    @Test
    void aPredecessorIsConfirmedOnlyWhileItNamesThisNodeItsSuccessor() {
        RingState s = new RingState(SPACE, node(40), 3);
        s.join(node(50), List.of(node(5)));
        s.rectify(node(10), true);
        assertFalse(s.predecessorConfirmed(), "not yet asked");
        assertFalse(s.predecessorAnswered(node(10), new Neighbours(Optional.empty(), List.of(node(20), node(40)))),
                "a node joined in between: 10's successor is 20, so 40 must not serve (10, 20]");
        assertFalse(s.predecessorConfirmed());
        assertTrue(s.predecessorAnswered(node(10), new Neighbours(Optional.empty(), List.of(node(40), node(50)))));
        assertTrue(s.predecessorConfirmed());
        assertFalse(s.predecessorAnswered(node(30), new Neighbours(Optional.empty(), List.of(node(40)))),
                "an answer from a node that is not the predecessor changes nothing");
        assertTrue(s.predecessorConfirmed());
    }

    @Test
    void everyChangeOfPredecessorDropsItsConfirmation() {
        RingState s = new RingState(SPACE, node(40), 3);
        s.join(node(50), List.of(node(5)));
        s.rectify(node(10), true);
        Neighbours namesUs = new Neighbours(Optional.empty(), List.of(node(40)));
        s.predecessorAnswered(node(10), namesUs);
        s.rectify(node(30), true);
        assertFalse(s.predecessorConfirmed(), "a closer node notified");
        s.predecessorAnswered(node(30), namesUs);
        s.predecessorFailed();
        assertFalse(s.predecessorConfirmed(), "failed");
        s.rectify(node(30), true);
        s.predecessorAnswered(node(30), namesUs);
        s.predecessorHandedOver(node(30), node(10));
        assertFalse(s.predecessorConfirmed(), "left, naming its own predecessor");
        s.predecessorAnswered(node(10), namesUs);
        s.forget(node(10));
        assertFalse(s.predecessorConfirmed(), "forgotten");
        s.rectify(node(30), true);
        s.rectify(node(30), true);
        s.predecessorAnswered(node(30), namesUs);
        s.rectify(node(30), true);
        assertTrue(s.predecessorConfirmed(), "the same notifier again is no change");
    }

    @Test
    void aSuccessorIsConfirmedOnlyWhileItNamesThisNodeItsPredecessor() {
        RingState s = new RingState(SPACE, node(40), 3);
        s.join(node(50), List.of(node(5)));
        assertFalse(s.successorConfirmed(), "not yet asked");
        assertFalse(s.successorAnswered(node(50), new Neighbours(Optional.of(node(10)), List.of(node(5)))),
                "50 has not been notified yet: it still serves (10, 50], this node's range included");
        assertTrue(s.successorAnswered(node(50), new Neighbours(Optional.of(node(40)), List.of(node(5)))));
        assertTrue(s.successorConfirmed());
        s.adoptSuccessor(node(50), List.of(node(5), node(10)));
        assertTrue(s.successorConfirmed(), "a longer list behind the same successor keeps it");
        s.adoptSuccessor(node(45), List.of(node(50)));
        assertFalse(s.successorConfirmed(), "a new successor must confirm again");
        s.successorAnswered(node(45), new Neighbours(Optional.of(node(40)), List.of(node(50))));
        s.forget(node(45));
        assertFalse(s.successorConfirmed(), "the successor died");
        assertFalse(s.successorAnswered(node(45), new Neighbours(Optional.of(node(40)), List.of())),
                "an answer from a former successor changes nothing");
    }
}
