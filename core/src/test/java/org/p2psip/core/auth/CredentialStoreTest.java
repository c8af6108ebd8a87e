package org.p2psip.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.ManualClock;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.local.LocalDht;
import org.p2psip.core.location.AddressOfRecord;

class CredentialStoreTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-11-23T12:00:00Z"));
    private final LocalDht dht = new LocalDht(new LocalDht.Store(clock, new Peer("n1", Optional.empty())),
            new Peer("n1", Optional.empty()), () -> { });
    private final CredentialStore store = new CredentialStore(dht, clock);

    private static AddressOfRecord aor(String user) {
        return AddressOfRecord.parse("sip:" + user + "@p2psip.test");
    }

    @Test
    void storedCredentialsAreFoundAndListed() {
        UserCredentials alice = UserCredentials.fromPassword(aor("alice"), "a");
        store.put(alice).join();
        assertEquals(Optional.of(alice), store.find(aor("alice")).join());
        assertEquals(List.of(aor("alice")), store.list().join());
    }

    @Test
    void addingAgainReplacesThePassword() {
        store.put(UserCredentials.fromPassword(aor("alice"), "old")).join();
        UserCredentials renewed = UserCredentials.fromPassword(aor("alice"), "new");
        store.put(renewed).join();
        assertEquals(Optional.of(renewed), store.find(aor("alice")).join());
        assertEquals(1, store.list().join().size());
    }

    @Test
    void aBatchLandsWholeAndIsListedInOrder() {
        List<UserCredentials> batch = new ArrayList<>();
        for (int i = 0; i < 700; i++) {
            batch.add(UserCredentials.fromPassword(aor("u" + i), "p" + i));
        }
        store.putAll(batch).join();
        List<AddressOfRecord> listed = store.list().join();
        assertEquals(700, listed.size());
        assertTrue(store.find(aor("u699")).join().isPresent());
        assertEquals(aor("u0"), listed.get(0));
    }

    @Test
    void removedUsersAreGoneFromStoreAndIndex() {
        store.put(UserCredentials.fromPassword(aor("alice"), "a")).join();
        store.put(UserCredentials.fromPassword(aor("bob"), "b")).join();
        assertTrue(store.remove(aor("alice")).join());
        assertFalse(store.remove(aor("alice")).join());
        assertTrue(store.find(aor("alice")).join().isEmpty());
        assertEquals(List.of(aor("bob")), store.list().join());
    }

    @Test
    void credentialsDoNotTouchTheBindingsOfTheSameAor() {
        store.put(UserCredentials.fromPassword(aor("alice"), "a")).join();
        assertTrue(dht.get(aor("alice").key()).join().isEmpty());
    }
}
