package org.p2psip.core.auth;

import static org.junit.jupiter.api.Assertions.assertFalse;
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

    private final ManualClock clock = new ManualClock(Instant.parse("2026-11-23T12:00:00Z"));
    private final LocalDht.Store shared = new LocalDht.Store(clock, new Peer("n1", Optional.empty()));
    private final NonceCountStore node1 = new NonceCountStore(new LocalDht(shared, new Peer("n1", Optional.empty()), () -> { }));
    private final NonceCountStore node3 = new NonceCountStore(new LocalDht(shared, new Peer("n3", Optional.empty()), () -> { }));
    private final Instant until = clock.instant().plus(Duration.ofMinutes(5));

    @Test
    void aCountAcceptedOnOneNodeIsAReplayOnAnother() {
        assertTrue(node1.firstUse(ALICE, "nonce-a", 1, until).join());
        assertFalse(node3.firstUse(ALICE, "nonce-a", 1, until).join());
        assertTrue(node3.firstUse(ALICE, "nonce-a", 2, until).join());
    }

    @Test
    void usersSharingANonceDoNotShareCounts() {
        assertTrue(node1.firstUse(ALICE, "nonce-a", 7, until).join());
        assertTrue(node1.firstUse(BOB, "nonce-a", 7, until).join());
    }

    @Test
    void theRecordLapsesWithTheNonce() {
        assertTrue(node1.firstUse(ALICE, "nonce-a", 1, until).join());
        clock.advance(Duration.ofMinutes(6));
        assertTrue(node1.firstUse(ALICE, "nonce-a", 1, clock.instant().plusSeconds(60)).join());
    }
}
