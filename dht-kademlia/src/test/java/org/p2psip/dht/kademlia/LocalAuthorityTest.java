package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;

/**
 * When a node answers for a key from its own store: only for keys it is
 * closest to, on an 8-bit id space, and only while its view of the overlay
 * has held still and no other holder has refused it.
 */
class LocalAuthorityTest {

    private static final IdSpace SPACE = new IdSpace(8);
    private static final long SETTLE = 10_000;
    private static final Contact SELF = c(0b1010_0000);
    private static final Contact NEAR = c(0b1010_1000);
    private static final Contact FAR = c(0b0001_0000);

    private final RoutingTable table = new RoutingTable(SPACE, SELF.id(), 20);
    private final ContactHealth health = new ContactHealth(2, 2_000);
    private final KademliaClient client = new KademliaClient(SELF, table, health, null, null, Duration.ofSeconds(1));
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final LocalAuthority authority = new LocalAuthority(SPACE, SELF, table, health, client,
            SETTLE, now::get);

    private static Contact c(int id) {
        return new Contact(BigInteger.valueOf(id), new HostPort("127.0.0.1", 1000 + id), Optional.empty());
    }

    /** The first of {@code k0}, {@code k1}, … whose id is closest to {@code node} among {@code nodes}. */
    private static String keyClosestTo(Contact node, List<Contact> nodes) {
        return IntStream.range(0, 10_000).mapToObj(i -> "k" + i)
                .filter(k -> nodes.stream().allMatch(o -> o == node || SPACE.distance(node.id(), SPACE.idOf(k))
                        .compareTo(SPACE.distance(o.id(), SPACE.idOf(k))) < 0))
                .findFirst().orElseThrow();
    }

    /** Two contacts learnt, and the settle time waited out. */
    private void settled() {
        table.observe(NEAR, 0);
        table.observe(FAR, 0);
        authority.answersFor("any");
        now.addAndGet(SETTLE);
    }

    @Test
    void answersForKeysItIsClosestToOnceItsTableHeldStill() {
        settled();
        List<Contact> all = List.of(SELF, NEAR, FAR);
        assertTrue(authority.answersFor(keyClosestTo(SELF, all)));
        assertFalse(authority.answersFor(keyClosestTo(NEAR, all)), "a closer contact coordinates it");
        assertFalse(authority.answersFor(keyClosestTo(FAR, all)));
    }

    @Test
    void aContactJoiningLeavesItsKeysToIt() {
        settled();
        Contact joiner = c(0b1100_0000);
        table.observe(joiner, now.get());
        assertTrue(authority.answersFor(keyClosestTo(SELF, List.of(SELF, NEAR, FAR, joiner))),
                "a joiner only takes keys away");
    }

    @Test
    void aContactLeavingSoonAfterAnotherChangeStartsTheSettleTimeOver() {
        settled();
        String mine = keyClosestTo(SELF, List.of(SELF, NEAR, FAR));
        table.observe(c(0b1100_0000), now.get());
        authority.answersFor(mine);
        now.addAndGet(SETTLE - 1);
        assertTrue(table.remove(FAR.id()));
        assertFalse(authority.answersFor(mine), "the keys of a node that left may still be on their way");
        now.addAndGet(SETTLE - 1);
        assertFalse(authority.answersFor(mine));
        now.addAndGet(1);
        assertTrue(authority.answersFor(mine));
    }

    @Test
    void aContactLeavingAndAnotherJoiningUnseenBetweenStartTheSettleTimeOver() {
        settled();
        String mine = keyClosestTo(SELF, List.of(SELF, NEAR, FAR));
        table.observe(c(0b1100_0000), now.get());
        assertTrue(table.remove(FAR.id()));
        assertFalse(authority.answersFor(mine), "which came first is not known here");
    }

    @Test
    void aContactLeavingATableThatHeldStillLeavesItsKeysWithTheNextHolder() {
        settled();
        String mine = keyClosestTo(SELF, List.of(SELF, NEAR, FAR));
        String nearsWithSelfSecond = IntStream.range(0, 10_000).mapToObj(i -> "k" + i)
                .filter(k -> closer(NEAR, SELF, k) && closer(SELF, FAR, k)).findFirst().orElseThrow();
        assertFalse(authority.answersFor(nearsWithSelfSecond));
        assertTrue(table.remove(NEAR.id()));
        assertTrue(authority.answersFor(mine));
        assertTrue(authority.answersFor(nearsWithSelfSecond), "as the second closest it held every acknowledged write");
    }

    private static boolean closer(Contact a, Contact b, String key) {
        return SPACE.distance(a.id(), SPACE.idOf(key)).compareTo(SPACE.distance(b.id(), SPACE.idOf(key))) < 0;
    }

    @Test
    void aNodeHoldingItsShareBackAsksTheHoldersUntilSettledAfterItAnnounces() {
        settled();
        String mine = keyClosestTo(SELF, List.of(SELF, NEAR, FAR));
        client.holdBack();
        assertFalse(authority.answersFor(mine));
        client.announce();
        assertFalse(authority.answersFor(mine), "its share is still being handed to it");
        now.addAndGet(SETTLE);
        assertTrue(authority.answersFor(mine));
    }

    @Test
    void aNodeThatKnowsFewerOthersThanAReadMustHearFromAsksThem() {
        RoutingTable alone = new RoutingTable(SPACE, SELF.id(), 20);
        LocalAuthority cutOff = new LocalAuthority(SPACE, SELF, alone, health,
                new KademliaClient(SELF, alone, health, null, null, Duration.ofSeconds(1)), SETTLE, now::get);
        cutOff.answersFor("k1");
        now.addAndGet(SETTLE);
        health.suspect(NEAR, now.get());
        assertFalse(cutOff.answersFor("k1"), "its only contact is suspected: a lookup would need it");
        now.addAndGet(ContactHealth.SUSPECT_MILLIS + 1);
        assertTrue(cutOff.answersFor("k1"), "alone once the suspicion lapsed, as a lookup would conclude");
    }

    @Test
    void aKeyAnotherHolderRefusedIsReadFromTheHoldersUntilAWriteOfItSucceeds() {
        settled();
        String mine = keyClosestTo(SELF, List.of(SELF, NEAR, FAR));
        authority.distrust(mine);
        assertFalse(authority.answersFor(mine));
        authority.trust(mine);
        assertTrue(authority.answersFor(mine));
    }

    @Test
    void aNodeAloneAnswersForEveryKey() {
        authority.answersFor("any");
        now.addAndGet(SETTLE);
        assertTrue(authority.answersFor("k1"));
        assertTrue(authority.answersFor("k2"));
    }
}
