package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.Dht;

class KeyStoreTest {

    private static final Instant NOW = Instant.parse("2026-11-21T12:00:00Z");
    private final KeyStore store = new KeyStore(new VersionClock(7));

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private StoredEntry committed(String key, long expected, String value, Instant expiresAt) {
        StoredEntry e = store.proposePut(key, expected, bytes(value), expiresAt, NOW).orElseThrow();
        store.mergeIfNewer(e);
        return e;
    }

    @Test
    void aProposedWriteIsNotStoredUntilCommitted() {
        Optional<StoredEntry> proposed = store.proposePut("k", Dht.ABSENT, bytes("v"), NOW.plusSeconds(60), NOW);
        assertTrue(proposed.isPresent());
        assertEquals(Dht.ABSENT, store.liveVersion("k", NOW));
        store.mergeIfNewer(proposed.get());
        assertEquals(proposed.get().version(), store.liveVersion("k", NOW));
    }

    @Test
    void aWriteAtAStaleVersionIsNotProposed() {
        StoredEntry first = committed("k", Dht.ABSENT, "one", NOW.plusSeconds(60));
        assertTrue(store.proposePut("k", Dht.ABSENT, bytes("two"), NOW.plusSeconds(60), NOW).isEmpty());
        assertTrue(store.proposePut("k", first.version() + 1, bytes("two"), NOW.plusSeconds(60), NOW).isEmpty());
        assertTrue(store.proposePut("k", first.version(), bytes("two"), NOW.plusSeconds(60), NOW).isPresent());
    }

    @Test
    void aNewVersionExceedsEvenAnExpiredCopy() {
        StoredEntry old = committed("k", Dht.ABSENT, "old", NOW.plusSeconds(1));
        Instant later = NOW.plusSeconds(5);
        StoredEntry fresh = store.proposePut("k", Dht.ABSENT, bytes("new"), later.plusSeconds(60), later).orElseThrow();
        assertTrue(fresh.version() > old.version());
        assertEquals(Dht.ABSENT, store.liveVersion("k", later));
    }

    @Test
    void onlyALiveValueAtTheExpectedVersionCanBeRemoved() {
        StoredEntry e = committed("k", Dht.ABSENT, "v", NOW.plusSeconds(60));
        assertFalse(store.canRemove("k", Dht.ABSENT, NOW));
        assertFalse(store.canRemove("k", e.version() + 1, NOW));
        assertFalse(store.canRemove("k", e.version(), NOW.plusSeconds(61)));
        assertTrue(store.canRemove("k", e.version(), NOW));
    }

    @Test
    void theFirstReplicaReportsALiveCopyNewerThanTheOwnersBase() {
        StoredEntry base = committed("k", Dht.ABSENT, "base", NOW.plusSeconds(60));
        assertTrue(store.newerThan("k", base.version(), NOW).isEmpty(), "the copy the owner's write replaces");
        StoredEntry takenOver = committed("k", base.version(), "written while the owner stalled", NOW.plusSeconds(60));
        assertEquals(Optional.of(takenOver), store.newerThan("k", base.version(), NOW));
        assertTrue(store.newerThan("k", takenOver.version(), NOW).isEmpty());
        assertTrue(store.newerThan("k", base.version(), NOW.plusSeconds(61)).isEmpty(), "an expired copy is absent");
        assertTrue(store.newerThan("other", Dht.ABSENT, NOW).isEmpty());
    }
}
