package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
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
    private final AtomicBoolean handingOver = new AtomicBoolean();
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final LocalAuthority authority = new LocalAuthority(SPACE, SELF, table, health, client,
            handingOver::get, SETTLE, now::get);

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
    void aContactJoiningOrLeavingStartsTheSettleTimeOver() {
        settled();
        String mine = keyClosestTo(SELF, List.of(SELF, NEAR, FAR));
        assertTrue(table.remove(FAR.id()));
        assertFalse(authority.answersFor(mine));
        now.addAndGet(SETTLE - 1);
        assertFalse(authority.answersFor(mine));
        now.addAndGet(1);
        assertTrue(authority.answersFor(mine));
        table.observe(NEAR, now.get());
        assertTrue(authority.answersFor(mine), "a contact seen again is no change of membership");
    }

    @Test
    void aSuspectAHandOverOrAHeldBackShareEachAskTheHoldersInstead() {
        settled();
        String mine = keyClosestTo(SELF, List.of(SELF, NEAR, FAR));
        handingOver.set(true);
        assertFalse(authority.answersFor(mine));
        handingOver.set(false);
        client.holdBack();
        assertFalse(authority.answersFor(mine));
        client.announce();
        health.suspect(c(0b1110_0000), now.get());
        assertFalse(authority.answersFor(mine));
        now.addAndGet(ContactHealth.SUSPECT_MILLIS + 1);
        assertTrue(authority.answersFor(mine), "a suspicion that lapsed no longer counts");
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
