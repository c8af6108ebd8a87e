package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/**
 * The custody rules of one node on a 6-bit circle (ids 0..63): what it
 * serves, what it holds whole, and what each ring change makes it do. No
 * network and no clock: the ring state is set by hand and the actions are
 * only looked at.
 */
class RangeCustodyTest {

    private static final IdSpace SPACE = new IdSpace(6);

    private static NodeRef node(int id) {
        return new NodeRef(BigInteger.valueOf(id), SimulatedNetwork.address(id));
    }

    private static BigInteger id(int i) {
        return BigInteger.valueOf(i);
    }

    /** Node 40 after joining in front of 50 (then 60, 5), told of predecessor 20; nothing confirmed yet. */
    private static RingState joined() {
        RingState ring = new RingState(SPACE, node(40), 3);
        ring.join(node(50), List.of(node(60), node(5)));
        ring.rectify(node(20), true);
        return ring;
    }

    /** Both neighbours name this node: the predecessor as its successor, the successor as its predecessor. */
    private static void confirm(RingState ring) {
        NodeRef self = ring.self();
        ring.predecessorAnswered(ring.predecessor().orElseThrow(),
                new Neighbours(Optional.empty(), List.of(self)));
        ring.successorAnswered(ring.successor(), new Neighbours(Optional.of(self), List.of()));
    }

    private static <T extends CustodyAction> List<T> only(Class<T> kind, List<CustodyAction> actions) {
        return actions.stream().filter(kind::isInstance).map(kind::cast).toList();
    }

    private static <T extends CustodyAction> T the(Class<T> kind, List<CustodyAction> actions) {
        List<T> found = only(kind, actions);
        assertEquals(1, found.size(), "one " + kind.getSimpleName() + " in " + actions);
        return found.get(0);
    }

    /** Node 40 serving (20, 40] with two copies of every key, its fetch answered by a node that held it whole. */
    private static RangeCustody serving(RingState ring) {
        RangeCustody custody = new RangeCustody(ring, 2);
        confirm(ring);
        CustodyAction.Fetch fetch = the(CustodyAction.Fetch.class, custody.ringChanged());
        custody.fetched(fetch, RangeCustody.WholeRangeSearch.FOUND);
        assertTrue(custody.serves(id(30)));
        return custody;
    }

    @Test
    void aJoinerRefusesItsRangeUntilEveryFetchSourceAnswered() {
        RingState ring = joined();
        confirm(ring);
        RangeCustody custody = new RangeCustody(ring, 2);

        CustodyAction.Fetch fetch = the(CustodyAction.Fetch.class, custody.ringChanged());
        assertEquals(new CustodyAction.Fetch(id(20), id(40), List.of(node(50), node(60)), true), fetch,
                "the gained range from the first two successors, and one of them must hold it whole");
        assertFalse(custody.serves(id(30)), "refused while the fetch is under way");
        assertFalse(custody.serves(id(40)));

        List<CustodyAction> done = custody.fetched(fetch, RangeCustody.WholeRangeSearch.FOUND);
        assertEquals(new CustodyAction.CaughtUp(id(20), Optional.empty()), the(CustodyAction.CaughtUp.class, done));
        assertEquals(List.of(node(50)), the(CustodyAction.PushOwned.class, done).targets(),
                "what it now owns goes to its replica");
        assertTrue(custody.serves(id(30)));
        assertTrue(custody.serves(id(40)));
        assertFalse(custody.serves(id(20)), "the predecessor's own id is not in (20, 40]");
        assertFalse(custody.serves(id(45)));
    }

    @Test
    void aJoinerWhoseSourcesHoldOnlyCopiesMustFindAWholeHolderButAGrownRangeNeedNot() {
        CustodyAction.Fetch joiner = new CustodyAction.Fetch(id(20), id(40), List.of(node(50), node(60)), true);
        assertFalse(joiner.settledBy(List.of(false, false)), "two joiners in one gap would fetch from each other");
        assertTrue(joiner.settledBy(List.of(false, true)));
        CustodyAction.Fetch grown = new CustodyAction.Fetch(id(10), id(20), List.of(node(50), node(60)), false);
        assertTrue(grown.settledBy(List.of(false, false)), "the replicas' copies are the whole of a dead node's range");
    }

    @Test
    void servingWaitsForBothNeighboursToConfirm() {
        RingState ring = joined();
        RangeCustody custody = new RangeCustody(ring, 2);
        List<CustodyAction> changed = custody.ringChanged();
        assertEquals(1, only(CustodyAction.AskPredecessor.class, changed).size(),
                "an unconfirmed new predecessor is asked at once, not next round");
        custody.fetched(the(CustodyAction.Fetch.class, changed), RangeCustody.WholeRangeSearch.FOUND);
        assertFalse(custody.serves(id(30)), "caught up, but neither neighbour has confirmed");

        ring.predecessorAnswered(node(20), new Neighbours(Optional.empty(), List.of(node(40))));
        assertFalse(custody.serves(id(30)), "the successor may still serve (20, 40] itself");
        ring.successorAnswered(node(50), new Neighbours(Optional.of(node(40)), List.of()));
        assertTrue(custody.serves(id(30)));
    }

    @Test
    void aNewlyConfirmedPredecessorBringsTheReplicasUpToDate() {
        RingState ring = joined();
        RangeCustody custody = new RangeCustody(ring, 2);
        custody.fetched(the(CustodyAction.Fetch.class, custody.ringChanged()), RangeCustody.WholeRangeSearch.FOUND);
        assertEquals(List.of(), only(CustodyAction.PushOwned.class, custody.ringChanged()), "nothing changed");
        confirm(ring);
        CustodyAction.PushOwned push = the(CustodyAction.PushOwned.class, custody.ringChanged());
        assertEquals(List.of(node(50)), push.targets());
        assertFalse(push.changesOnly(), "every key: the replicas may lack those of a range gained");
    }

    @Test
    void noSecondFetchStartsWhileOneIsUnderWayAndAFailedOneIsTriedAgainNextRound() {
        RingState ring = joined();
        confirm(ring);
        RangeCustody custody = new RangeCustody(ring, 2);
        the(CustodyAction.Fetch.class, custody.ringChanged());
        assertEquals(List.of(), only(CustodyAction.Fetch.class, custody.ringChanged()));
        assertEquals(List.of(), only(CustodyAction.Fetch.class, custody.roundEnded()));

        custody.fetchFailed();
        assertEquals(id(20), the(CustodyAction.Fetch.class, custody.roundEnded()).from());
    }

    @Test
    void aJoinerServesFromTheSuccessorsCopiesOnlyOnceItsPatienceForAWholeHolderRunsOut() {
        RingState ring = joined();
        confirm(ring);
        RangeCustody custody = new RangeCustody(ring, 2);
        CustodyAction.Fetch fetch = the(CustodyAction.Fetch.class, custody.ringChanged());
        for (int miss = 1; miss < RangeCustody.FETCH_PATIENCE; miss++) {
            assertEquals(List.of(), custody.fetched(fetch, RangeCustody.WholeRangeSearch.GAVE_UP));
            assertFalse(custody.serves(id(30)), "still looking after " + miss + " walks");
            fetch = the(CustodyAction.Fetch.class, custody.roundEnded());
        }
        List<CustodyAction> last = custody.fetched(fetch, RangeCustody.WholeRangeSearch.GAVE_UP);
        assertEquals(new CustodyAction.ServedFromCopies(id(20), id(40)),
                the(CustodyAction.ServedFromCopies.class, last));
        assertTrue(custody.serves(id(30)));
    }

    @Test
    void aWalkRoundTheWholeRingThatFoundNobodyServesFromTheCopiesAtOnce() {
        RingState ring = joined();
        confirm(ring);
        RangeCustody custody = new RangeCustody(ring, 2);
        CustodyAction.Fetch fetch = the(CustodyAction.Fetch.class, custody.ringChanged());
        List<CustodyAction> done = custody.fetched(fetch, RangeCustody.WholeRangeSearch.NOWHERE);
        the(CustodyAction.ServedFromCopies.class, done);
        assertTrue(custody.serves(id(30)));
    }

    @Test
    void aFetchOvertakenByANewPredecessorIsRedoneForTheNewRange() {
        RingState ring = joined();
        confirm(ring);
        RangeCustody custody = new RangeCustody(ring, 2);
        CustodyAction.Fetch fetch = the(CustodyAction.Fetch.class, custody.ringChanged());
        ring.rectify(node(30), true);

        List<CustodyAction> done = custody.fetched(fetch, RangeCustody.WholeRangeSearch.FOUND);
        assertEquals(List.of(), only(CustodyAction.CaughtUp.class, done));
        assertEquals(id(30), the(CustodyAction.Fetch.class, done).from());
        assertFalse(custody.serves(id(35)));
    }

    @Test
    void aPredecessorThatDiedGrowsTheRangeByItsRangeAloneAndTheKeysAreReReplicated() {
        RingState ring = joined();
        RangeCustody custody = serving(ring);
        ring.predecessorFailed();
        assertEquals(List.of(), custody.ringChanged(), "no predecessor known: nothing to catch up on");
        assertFalse(custody.serves(id(30)), "it cannot tell which keys are its own");

        ring.rectify(node(10), true);
        List<CustodyAction> changed = custody.ringChanged();
        CustodyAction.Fetch fetch = the(CustodyAction.Fetch.class, changed);
        assertEquals(new CustodyAction.Fetch(id(10), id(20), List.of(node(50), node(60)), false), fetch,
                "only the gain, and the replicas' copies of it will do");
        confirm(ring);
        List<CustodyAction> done = custody.fetched(fetch, RangeCustody.WholeRangeSearch.FOUND);
        assertEquals(new CustodyAction.CaughtUp(id(10), Optional.of(id(20))), the(CustodyAction.CaughtUp.class, done));
        assertEquals(List.of(node(50)), the(CustodyAction.PushOwned.class, done).targets());
        assertTrue(custody.serves(id(15)));
        assertTrue(custody.serves(id(30)));
    }

    @Test
    void aRangeThatShrankIsHandedBackToTheNodeInFrontWithoutAFetch() {
        RingState ring = joined();
        RangeCustody custody = serving(ring);
        ring.rectify(node(30), true);

        List<CustodyAction> changed = custody.ringChanged();
        assertEquals(new CustodyAction.HandBack(node(30), id(20), id(30)), the(CustodyAction.HandBack.class, changed));
        assertEquals(List.of(), only(CustodyAction.Fetch.class, changed));
        the(CustodyAction.AskPredecessor.class, changed);
        assertFalse(custody.serves(id(35)), "until 30 confirms");
        confirm(ring);
        assertTrue(custody.serves(id(35)));
        assertFalse(custody.serves(id(25)));
    }

    @Test
    void aNodeHoldsWholeTheWidestRangeItHasServedEvenAfterItShrinks() {
        RingState ring = joined();
        RangeCustody custody = new RangeCustody(ring, 2);
        assertFalse(custody.holdsWhole(id(30), id(40)), "a joiner holds nothing whole");
        custody = serving(ring);
        assertTrue(custody.holdsWhole(id(20), id(40)));
        assertTrue(custody.holdsWhole(id(25), id(35)));
        assertFalse(custody.holdsWhole(id(10), id(40)));
        assertFalse(custody.holdsWhole(id(30), id(45)));

        ring.rectify(node(30), true);
        custody.ringChanged();
        confirm(ring);
        custody.ringChanged();
        assertTrue(custody.serves(id(35)));
        assertTrue(custody.holdsWhole(id(20), id(40)), "it served (20, 40] and kept every key of it");
    }

    @Test
    void theFirstNodeOfARingHoldsAndServesEveryKey() {
        RangeCustody custody = new RangeCustody(new RingState(SPACE, node(40), 3), 2);
        custody.startsRing();
        assertTrue(custody.holdsWhole(id(41), id(40)));
        assertTrue(custody.serves(id(3)));
        assertFalse(custody.shouldRejoin(false));
        assertTrue(custody.shouldRejoin(true), "told of members, it looks for them");
    }

    @Test
    void aFetchFromANodeInsideTheRangeIsTakenAsItsNotify() {
        RingState ring = joined();
        RangeCustody custody = serving(ring);
        assertTrue(custody.shouldYieldTo(node(30)));
        assertFalse(custody.shouldYieldTo(node(10)));
        assertFalse(custody.shouldYieldTo(node(20)));
        ring.predecessorFailed();
        assertTrue(custody.shouldYieldTo(node(10)), "no predecessor: anyone else is in front");
        assertFalse(custody.shouldYieldTo(node(40)));
    }

    @Test
    void aNodeThatLosesEverySuccessorServesNothingUntilNoMemberAnsweredForItsWholePatience() {
        RingState ring = new RingState(SPACE, node(40), 3);
        ring.join(node(20), List.of(node(40)));
        ring.rectify(node(20), true);
        RangeCustody custody = serving(ring);
        ring.forget(node(20));

        assertEquals(List.of(new CustodyAction.CutOff()), custody.ringChanged());
        assertFalse(custody.serves(id(30)), "cut off is not alone");
        assertTrue(custody.shouldRejoin(false));
        assertEquals(List.of(node(20)), custody.formerSuccessors());
        for (int round = 1; round < RangeCustody.FETCH_PATIENCE; round++) {
            assertEquals(List.of(), custody.roundStarted());
            assertEquals(List.of(), custody.roundEnded());
        }
        assertEquals(List.of(new CustodyAction.GaveUpOnRing(RangeCustody.FETCH_PATIENCE)), custody.roundStarted());
        assertTrue(custody.serves(id(30)));
        assertTrue(custody.holdsWhole(id(41), id(40)));
    }

    @Test
    void aRingStateThatLostItsLastSuccessorBeforeTheCustodyHeardServesNothing() {
        RingState ring = new RingState(SPACE, node(40), 3);
        ring.join(node(20), List.of(node(40)));
        ring.rectify(node(20), true);
        RangeCustody custody = serving(ring);
        ring.forget(node(20));

        assertFalse(custody.serves(id(30)), "a lookup found its neighbour dead; nobody said it is alone");
        assertFalse(custody.serves(id(10)));
        assertEquals(List.of(), custody.replicaTargets());
    }

    @Test
    void aNodeCutOffFromTwoOrMoreOthersNeverServesAloneButKeepsRejoining() {
        RingState ring = new RingState(SPACE, node(40), 3);
        ring.join(node(50), List.of(node(20), node(40)));
        ring.rectify(node(20), true);
        RangeCustody custody = serving(ring);
        ring.forget(node(50));
        ring.forget(node(20));

        assertEquals(List.of(new CustodyAction.CutOff()), custody.ringChanged());
        for (int round = 1; round <= 10 * RangeCustody.FETCH_PATIENCE; round++) {
            assertEquals(List.of(), custody.roundStarted(), "round " + round);
            assertEquals(List.of(), custody.roundEnded(), "round " + round);
        }
        assertFalse(custody.serves(id(30)), "a partition, not the end of the ring");
        assertFalse(custody.serves(id(35)));
        assertTrue(custody.shouldRejoin(false));
        assertEquals(List.of(node(50), node(20)), custody.formerSuccessors());
    }

    @Test
    void theLastOtherMemberLeavingGracefullyLeavesTheNodeAloneNotCutOff() {
        RingState ring = new RingState(SPACE, node(40), 3);
        ring.join(node(20), List.of(node(40)));
        ring.rectify(node(20), true);
        RangeCustody custody = serving(ring);
        ring.predecessorHandedOver(node(20), null);
        ring.forget(node(20));
        custody.memberLeft();

        assertEquals(List.of(), custody.ringChanged());
        assertTrue(custody.serves(id(10)), "it has every key, handed over by the leaver");
        assertFalse(custody.shouldRejoin(false), "nobody left to rejoin through");
    }

    @Test
    void everyTwentiethRoundTheOwnerRePushesItsKeysToItsReplicas() {
        RangeCustody custody = serving(joined());
        for (int round = 1; round < RangeCustody.ANTI_ENTROPY_ROUNDS; round++) {
            custody.roundStarted();
            assertEquals(List.of(), only(CustodyAction.PushOwned.class, custody.roundEnded()), "round " + round);
        }
        custody.roundStarted();
        CustodyAction.PushOwned push = the(CustodyAction.PushOwned.class, custody.roundEnded());
        assertEquals(List.of(node(50)), push.targets());
        assertTrue(push.changesOnly(), "what changed since the last push the replica took");
    }

    @Test
    void everyThirtiethRePushCarriesEveryKey() {
        RangeCustody custody = serving(joined());
        List<Boolean> whole = new ArrayList<>();
        for (int round = 1; round <= RangeCustody.ANTI_ENTROPY_ROUNDS * RangeCustody.WHOLE_PUSH_EVERY; round++) {
            custody.roundStarted();
            only(CustodyAction.PushOwned.class, custody.roundEnded()).forEach(p -> whole.add(!p.changesOnly()));
        }
        assertEquals(RangeCustody.WHOLE_PUSH_EVERY, whole.size());
        assertEquals(List.of(true), whole.subList(whole.size() - 1, whole.size()));
        assertFalse(whole.subList(0, whole.size() - 1).contains(true));
    }

    @Test
    void actionsRefuseWhatCannotBeCarriedOut() {
        assertThrows(IllegalArgumentException.class, () -> new CustodyAction.Fetch(id(1), id(2), List.of(), true));
        assertThrows(IllegalArgumentException.class, () -> new CustodyAction.PushOwned(List.of()));
        assertThrows(IllegalArgumentException.class, () -> new RangeCustody(new RingState(SPACE, node(1), 1), 0));
    }
}
