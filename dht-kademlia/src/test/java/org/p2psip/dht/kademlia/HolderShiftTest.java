package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;

/**
 * Who gives a key to whom when the routing table changes, on an 8-bit id
 * space with two holders per key: worked out from the table alone, only for
 * keys whose holders changed, and by one former holder.
 */
class HolderShiftTest {

    private static final IdSpace SPACE = new IdSpace(8);
    private static final int WIDTH = 2;
    private static final int NO_FULL_BUCKET = SPACE.bits();

    private static final Contact SELF = c(0x10);
    private static final Contact B = c(0x30);
    private static final Contact C = c(0x80);
    private static final Contact D = c(0x18);
    /** Closer than this node to {@link #NEAR_SELF}. */
    private static final Contact JOINER = c(0x13);
    /** 0x02 from this node, 0x01 from the joiner, 0x0a from D, 0x22 from B. */
    private static final BigInteger NEAR_SELF = BigInteger.valueOf(0x12);
    /** 0x01 from B, 0x21 from this node, 0x22 from the joiner. */
    private static final BigInteger NEAR_B = BigInteger.valueOf(0x31);

    private static Contact c(int id) {
        return new Contact(BigInteger.valueOf(id), new HostPort("127.0.0.1", 1000 + id), Optional.empty());
    }

    private static HolderShift shift(Contact self, List<Contact> before, List<Contact> after) {
        return new HolderShift(SPACE, self, WIDTH, before, after, NO_FULL_BUCKET);
    }

    @Test
    void joinerCloserThanAHolderGetsTheKey() {
        HolderShift.Duty duty = shift(SELF, List.of(B, C), List.of(B, C, JOINER)).dutyFor(NEAR_SELF);
        assertEquals(new HolderShift.Duty.Give(List.of(JOINER)), duty);
    }

    @Test
    void keyFarFromTheJoinerIsNotRepublished() {
        HolderShift.Duty duty = shift(SELF, List.of(B, C), List.of(B, C, JOINER)).dutyFor(NEAR_B);
        assertEquals(new HolderShift.Duty.Unchanged(), duty);
    }

    @Test
    void holderFartherFromTheKeyLeavesItToTheCloserOne() {
        // B's view of the same join: this node (0x10) held the key with B and is closer to it.
        HolderShift.Duty duty = shift(B, List.of(SELF, C), List.of(SELF, C, JOINER)).dutyFor(NEAR_SELF);
        assertEquals(new HolderShift.Duty.LeftTo(SELF), duty);
    }

    @Test
    void nodeThatMovesInBehindADeadHolderGetsTheKey() {
        HolderShift.Duty duty = shift(SELF, List.of(B, C, D), List.of(B, C)).dutyFor(NEAR_SELF);
        assertEquals(new HolderShift.Duty.Give(List.of(B)), duty);
    }

    @Test
    void survivingHolderFartherFromTheKeyLeavesTheDeadOnesKeyToTheCloserOne() {
        // Three holders of 0x12: this node (0x02 from it), D (0x0a) and B (0x22). B dies and E (0x40) moves in.
        Contact e = c(0x52);
        HolderShift fromD = new HolderShift(SPACE, D, 3, List.of(SELF, B, e, C), List.of(SELF, e, C),
                NO_FULL_BUCKET);
        assertEquals(new HolderShift.Duty.LeftTo(SELF), fromD.dutyFor(NEAR_SELF));
        HolderShift fromSelf = new HolderShift(SPACE, SELF, 3, List.of(D, B, e, C), List.of(D, e, C),
                NO_FULL_BUCKET);
        assertEquals(new HolderShift.Duty.Give(List.of(e)), fromSelf.dutyFor(NEAR_SELF));
    }

    @Test
    void deathOfANodeThatHeldNothingOfTheKeyCostsNothing() {
        assertEquals(new HolderShift.Duty.Unchanged(), shift(SELF, List.of(B, C, D), List.of(B, D))
                .dutyFor(NEAR_SELF));
    }

    @Test
    void whenEveryOtherFormerHolderIsGoneThisNodeGivesItsCopy() {
        // The key's holders were B and D; this node kept an older copy from before they came. Both die.
        BigInteger key = BigInteger.valueOf(0x38);
        Contact x = c(0x1f);
        HolderShift shift = shift(SELF, List.of(B, D, C, x), List.of(C, x));
        assertEquals(new HolderShift.Duty.Give(List.of(x)), shift.dutyFor(key));
    }

    @Test
    void displacedHolderThatWasTheClosestStillGivesTheKey() {
        Contact second = c(0x12);
        HolderShift.Duty duty = shift(SELF, List.of(B, C), List.of(B, C, JOINER, second)).dutyFor(NEAR_SELF);
        assertEquals(new HolderShift.Duty.Give(List.of(second, JOINER)), duty);
    }

    @Test
    void aNodesFirstViewGivesEveryOtherHolderTheKeysItBroughtBack() {
        HolderShift.Duty duty = shift(SELF, List.of(), List.of(B, C)).dutyFor(NEAR_SELF);
        assertEquals(new HolderShift.Duty.Give(List.of(B)), duty);
    }

    @Test
    void aLoneNodeHasNobodyToGiveTo() {
        assertEquals(new HolderShift.Duty.Unchanged(), shift(SELF, List.of(B), List.of()).dutyFor(NEAR_SELF));
    }

    @Test
    void unchangedMembershipCostsNothing() {
        HolderShift shift = shift(SELF, List.of(B, C), List.of(C, B));
        assertFalse(shift.changed());
        assertEquals(new HolderShift.Duty.Unchanged(), shift.dutyFor(NEAR_SELF));
        assertEquals(new HolderShift.Duty.Unchanged(), shift.dutyFor(NEAR_B));
        assertTrue(shift(SELF, List.of(B, C), List.of(B, C, JOINER)).changed());
    }

    @Test
    void fullBucketWithinReachOfTheKeyCallsForALookup() {
        // The holders of 0x12 are 0x13 and this node, at most 0x02 from it: buckets 0 and 1 could hold closer
        // nodes this table turned away.
        HolderShift full = new HolderShift(SPACE, SELF, WIDTH, List.of(B, C), List.of(B, C, JOINER), 1);
        assertEquals(new HolderShift.Duty.LookUp(Set.of(SELF.id(), B.id())), full.dutyFor(NEAR_SELF));
    }

    @Test
    void fullBucketBeyondReachOfTheKeyDoesNotMatter() {
        HolderShift far = new HolderShift(SPACE, SELF, WIDTH, List.of(B, C), List.of(B, C, JOINER), 2);
        assertEquals(new HolderShift.Duty.Give(List.of(JOINER)), far.dutyFor(NEAR_SELF));
    }

    @Test
    void tooFewHoldersAndAnyFullBucketCallForALookup() {
        // Three holders wanted, three known: any node anywhere would be one, so every bucket must have room.
        HolderShift thin = new HolderShift(SPACE, SELF, 4, List.of(B), List.of(B, C), 7);
        assertEquals(new HolderShift.Duty.LookUp(Set.of(SELF.id(), B.id())), thin.dutyFor(NEAR_SELF));
        HolderShift roomy = new HolderShift(SPACE, SELF, 4, List.of(B), List.of(B, C), NO_FULL_BUCKET);
        assertEquals(new HolderShift.Duty.Give(List.of(C)), roomy.dutyFor(NEAR_SELF));
    }
}
