package org.p2psip.core.auth;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.ManualClock;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.local.LocalDht;
import org.p2psip.core.location.AddressOfRecord;

class NonceCountStoreTest {

    private static final AddressOfRecord ALICE = AddressOfRecord.parse("sip:alice@p2psip.test");
    private static final AddressOfRecord BOB = AddressOfRecord.parse("sip:bob@p2psip.test");
    private static final long REGISTER_1 = NonceCountStore.transactionOf("z9hG4bK-1", "10.0.0.7:5060", "REGISTER");
    private static final long REGISTER_2 = NonceCountStore.transactionOf("z9hG4bK-2", "10.0.0.7:5060", "REGISTER");

    private final ManualClock clock = new ManualClock(Instant.parse("2026-11-23T12:00:00Z"));
    private final LocalDht.Store shared = new LocalDht.Store(clock, new Peer("n1", Optional.empty()));
    private final NonceCountStore node1 = new NonceCountStore(new LocalDht(shared, new Peer("n1", Optional.empty()), () -> { }));
    private final NonceCountStore node3 = new NonceCountStore(new LocalDht(shared, new Peer("n3", Optional.empty()), () -> { }));
    private final Instant until = clock.instant().plus(Duration.ofMinutes(5));

    private boolean admit(NonceCountStore node, AddressOfRecord user, long nc, long transaction) {
        return node.admit(user, "nonce-a", nc, transaction, clock.instant(), until).join();
    }

    @Test
    void aCountAcceptedOnOneNodeIsAReplayOnAnother() {
        assertTrue(admit(node1, ALICE, 1, REGISTER_1));
        assertFalse(admit(node3, ALICE, 1, REGISTER_2));
        assertTrue(admit(node3, ALICE, 2, REGISTER_2));
    }

    @Test
    void aRetransmissionReachingAnotherNodeIsAdmittedLikeItsOriginal() {
        assertTrue(admit(node1, ALICE, 1, REGISTER_1));
        clock.advance(Duration.ofSeconds(4));
        assertTrue(admit(node3, ALICE, 1, REGISTER_1));
    }

    @Test
    void aWriteTriedAgainAfterItsAcknowledgementWasLostIsNotARefusal() {
        // The DHT applied the first write; the second finds the key taken, by that very request.
        assertTrue(admit(node1, ALICE, 1, REGISTER_1));
        assertTrue(admit(node1, ALICE, 1, REGISTER_1));
    }

    @Test
    void aCopyComingAfterItsTransactionWouldHaveEndedIsAReplay() {
        assertTrue(admit(node1, ALICE, 1, REGISTER_1));
        clock.advance(Duration.ofMillis(64 * 500 + 1));
        assertFalse(admit(node3, ALICE, 1, REGISTER_1));
    }

    @Test
    void aCopyOfAnOlderCountIsAReplay() {
        assertTrue(admit(node1, ALICE, 1, REGISTER_1));
        assertTrue(admit(node1, ALICE, 2, REGISTER_2));
        assertFalse(admit(node3, ALICE, 1, REGISTER_1));
    }

    @Test
    void aLowerCountUsedLateKeepsTheNewestRequestRecognisable() {
        assertTrue(admit(node1, ALICE, 3, REGISTER_2));
        assertTrue(admit(node1, ALICE, 2, REGISTER_1));
        assertTrue(admit(node3, ALICE, 3, REGISTER_2));
    }

    @Test
    void usersSharingANonceDoNotShareCounts() {
        assertTrue(admit(node1, ALICE, 7, REGISTER_1));
        assertTrue(admit(node1, BOB, 7, REGISTER_2));
    }

    @Test
    void theRecordLapsesWithTheNonce() {
        assertTrue(admit(node1, ALICE, 1, REGISTER_1));
        clock.advance(Duration.ofMinutes(6));
        assertTrue(node1.admit(ALICE, "nonce-a", 1, REGISTER_2, clock.instant(), clock.instant().plusSeconds(60))
                .join());
    }

    @Test
    void transactionsDifferingInBranchSentByOrMethodHaveDifferentFingerprints() {
        long invite = NonceCountStore.transactionOf("z9hG4bK-1", "10.0.0.7:5060", "INVITE");
        long elsewhere = NonceCountStore.transactionOf("z9hG4bK-1", "10.0.0.8:5060", "REGISTER");
        assertNotEquals(REGISTER_1, REGISTER_2);
        assertNotEquals(REGISTER_1, invite);
        assertNotEquals(REGISTER_1, elsewhere);
    }
}
