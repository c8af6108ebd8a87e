package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

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

    // ---- ranges and pages, on an 8-bit ring so that ranges are easy to state ----

    private final IdSpace small = new IdSpace(8);
    private final KeyStore ring = new KeyStore(new VersionClock(7), small);

    private void put(String key, int bytes, Instant expiresAt) {
        ring.mergeIfNewer(new StoredEntry(key, new byte[bytes], 1, expiresAt));
    }

    private List<String> keysOf(List<StoredEntry> entries) {
        return entries.stream().map(StoredEntry::key).toList();
    }

    @Test
    void liveInHoldsTheLiveEntriesOfTheRangeOnly() {
        for (int i = 0; i < 200; i++) {
            put("k" + i, 1, NOW.plusSeconds(i % 10 == 0 ? -1 : 60));
        }
        BigInteger from = BigInteger.valueOf(200);
        BigInteger to = BigInteger.valueOf(40);
        Set<String> expected = new TreeSet<>();
        for (int i = 0; i < 200; i++) {
            if (i % 10 != 0 && small.betweenRightClosed(from, small.idOf("k" + i), to)) {
                expected.add("k" + i);
            }
        }
        assertFalse(expected.isEmpty());
        assertEquals(expected, new TreeSet<>(keysOf(ring.liveIn(from, to, NOW))));
    }

    @Test
    void pagesFollowingTheirMarksCoverTheRangeOnceInKeyOrder() {
        for (int i = 0; i < 500; i++) {
            put("aor" + i + "@example.com", 40, NOW.plusSeconds(60));
        }
        BigInteger from = BigInteger.valueOf(100);
        BigInteger to = BigInteger.valueOf(20);
        List<String> got = new ArrayList<>();
        Optional<String> after = Optional.empty();
        int pages = 0;
        do {
            KeyStore.Page page = ring.pageIn(from, to, NOW, after, 1_000, 16);
            assertTrue(page.entries().size() <= 16, "entries per page");
            got.addAll(keysOf(page.entries()));
            after = page.next();
            pages++;
        } while (after.isPresent() && pages < 1_000);
        List<String> expected = keysOf(ring.liveIn(from, to, NOW)).stream().sorted().toList();
        assertEquals(expected, got);
        assertTrue(pages > 5, "a range of " + expected.size() + " entries came in " + pages + " pages");
    }

    @Test
    void aPageStopsAtItsByteBoundButHoldsAnOversizedEntry() {
        put("a", 10_000, NOW.plusSeconds(60));
        put("b", 10, NOW.plusSeconds(60));
        BigInteger all = BigInteger.ZERO;
        KeyStore.Page first = ring.pageIn(all, all, NOW, Optional.empty(), 1_000, 100);
        assertEquals(List.of("a"), keysOf(first.entries()));
        assertEquals(Optional.of("a"), first.next());
        KeyStore.Page second = ring.pageIn(all, all, NOW, first.next(), 1_000, 100);
        assertEquals(List.of("b"), keysOf(second.entries()));
        assertEquals(Optional.empty(), second.next());
    }

    @Test
    void anEmptyRangeIsOneEmptyLastPage() {
        KeyStore.Page page = ring.pageIn(BigInteger.ONE, BigInteger.TWO, NOW, Optional.empty(), 1_000, 10);
        assertTrue(page.entries().isEmpty());
        assertEquals(Optional.empty(), page.next());
    }
}
