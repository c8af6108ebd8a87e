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
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.store.HeldValue;
import org.p2psip.core.testing.RecordedValueLog;

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

    private KeyStore.Page page(BigInteger from, BigInteger to, Optional<String> after, long bytes, int entries) {
        return ring.pageIn(from, to, NOW, OptionalLong.empty(), after, bytes, entries).orElseThrow();
    }

    /** Everything {@code source} holds of {@code (from, to]}, or what changed there since {@code since}, applied to {@code copy}. */
    private static void copyInto(KeyStore copy, KeyStore source, BigInteger from, BigInteger to, OptionalLong since) {
        Optional<String> after = Optional.empty();
        do {
            KeyStore.Page p = source.pageIn(from, to, NOW, since, after, 300, 7).orElseThrow();
            p.entries().forEach(copy::mergeIfNewer);
            p.removals().forEach(r -> copy.removeIfNotNewer(r.key(), r.version()));
            after = p.next();
        } while (after.isPresent());
    }

    private static Set<String> liveKeysAndVersions(KeyStore s, BigInteger from, BigInteger to) {
        Set<String> out = new TreeSet<>();
        s.liveIn(from, to, NOW).forEach(e -> out.add(e.key() + "@" + e.version()));
        return out;
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
            KeyStore.Page page = page(from, to, after, 1_000, 16);
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
        KeyStore.Page first = page(all, all, Optional.empty(), 1_000, 100);
        assertEquals(List.of("a"), keysOf(first.entries()));
        assertEquals(Optional.of("a"), first.next());
        KeyStore.Page second = page(all, all, first.next(), 1_000, 100);
        assertEquals(List.of("b"), keysOf(second.entries()));
        assertEquals(Optional.empty(), second.next());
    }

    @Test
    void anEmptyRangeIsOneEmptyLastPage() {
        KeyStore.Page page = page(BigInteger.ONE, BigInteger.TWO, Optional.empty(), 1_000, 10);
        assertTrue(page.entries().isEmpty());
        assertEquals(Optional.empty(), page.next());
    }

    @Test
    void aCopyTakenBeforeChangesIsBroughtUpToDateByTheChangesSinceItsMark() {
        for (int i = 0; i < 60; i++) {
            put("k" + i, 5, NOW.plusSeconds(60));
        }
        BigInteger all = BigInteger.ZERO;
        long mark = ring.changeMark();
        KeyStore copy = new KeyStore(new VersionClock(9), small);
        copyInto(copy, ring, all, all, OptionalLong.empty());
        // After the mark: one key rewritten, one removed, one new, one cut short to already expired.
        ring.mergeIfNewer(new StoredEntry("k1", new byte[9], 2, NOW.plusSeconds(60)));
        ring.removeIfNotNewer("k2", 1);
        put("new", 5, NOW.plusSeconds(60));
        ring.mergeIfNewer(new StoredEntry("k3", new byte[1], 2, NOW.minusSeconds(1)));

        KeyStore.Page changes = ring.pageIn(all, all, NOW, OptionalLong.of(mark), Optional.empty(), 10_000, 100)
                .orElseThrow();
        assertEquals(List.of("k1", "k3", "new"), keysOf(changes.entries()));
        assertEquals(List.of(new KeyStore.Removal("k2", 1)), changes.removals());
        copyInto(copy, ring, all, all, OptionalLong.of(mark));
        assertEquals(liveKeysAndVersions(ring, all, all), liveKeysAndVersions(copy, all, all));
        assertFalse(liveKeysAndVersions(copy, all, all).contains("k2@1"));
    }

    @Test
    void aWholeCopyCarriesNoRemovalsAndNoExpiredEntries() {
        put("gone", 5, NOW.plusSeconds(60));
        put("stale", 5, NOW.minusSeconds(1));
        put("kept", 5, NOW.plusSeconds(60));
        ring.removeIfNotNewer("gone", 1);
        KeyStore.Page whole = page(BigInteger.ZERO, BigInteger.ZERO, Optional.empty(), 10_000, 100);
        assertEquals(List.of("kept"), keysOf(whole.entries()));
        assertTrue(whole.removals().isEmpty());
    }

    @Test
    void aMarkOlderThanTheRemovalsKeptIsNotAnswered() {
        for (int i = 0; i <= KeyStore.REMOVALS_KEPT; i++) {
            put("k" + i, 1, NOW.plusSeconds(60));
        }
        long before = ring.changeMark();
        ring.removeIfNotNewer("k0", 1);
        long afterFirst = ring.changeMark();
        for (int i = 1; i <= KeyStore.REMOVALS_KEPT; i++) {
            ring.removeIfNotNewer("k" + i, 1);
        }
        BigInteger all = BigInteger.ZERO;
        assertTrue(ring.pageIn(all, all, NOW, OptionalLong.of(before), Optional.empty(), 1_000, 10).isEmpty(),
                "the removal of k0 is forgotten, so changes since before it cannot be told");
        KeyStore.Page since = ring.pageIn(all, all, NOW, OptionalLong.of(afterFirst), Optional.empty(), 1 << 30,
                1 << 20).orElseThrow();
        assertEquals(KeyStore.REMOVALS_KEPT, since.removals().size());
    }

    @Test
    void droppingACopyForgetsTheRangeWithoutRecordingRemovals() {
        for (int i = 0; i < 100; i++) {
            put("k" + i, 1, NOW.plusSeconds(60));
        }
        BigInteger from = BigInteger.valueOf(10);
        BigInteger to = BigInteger.valueOf(90);
        int inRange = ring.liveIn(from, to, NOW).size();
        long mark = ring.changeMark();
        assertEquals(inRange, ring.dropIn(from, to));
        assertTrue(ring.liveIn(from, to, NOW).isEmpty());
        assertEquals(100 - inRange, ring.size());
        assertEquals(mark, ring.changeMark());
        KeyStore.Page changes = ring.pageIn(BigInteger.ZERO, BigInteger.ZERO, NOW, OptionalLong.of(mark),
                Optional.empty(), 10_000, 100).orElseThrow();
        assertTrue(changes.entries().isEmpty() && changes.removals().isEmpty());
    }

    @Test
    void everyEntryTakenOrLetGoReachesTheLogButARestoreDoesNot() {
        RecordedValueLog log = new RecordedValueLog();
        KeyStore logged = new KeyStore(new VersionClock(7), IdSpace.SHA1, log);
        logged.restore(new HeldValue("old", bytes("o"), 3, NOW.plusSeconds(60).toEpochMilli()));
        assertTrue(logged.live("old", NOW).isPresent(), "restored");

        logged.mergeIfNewer(new StoredEntry("a", bytes("a"), 5, NOW.plusSeconds(60)));
        logged.mergeIfNewer(new StoredEntry("a", bytes("stale"), 4, NOW.plusSeconds(60)));
        logged.removeIfNotNewer("a", 5);
        logged.mergeIfNewer(new StoredEntry("b", bytes("b"), 6, NOW.plusSeconds(1)));
        logged.purgeExpired(NOW.plusSeconds(2));
        logged.dropIn(BigInteger.ZERO, IdSpace.SHA1.size().subtract(BigInteger.ONE));

        assertEquals(List.of("stored a v5", "removed a", "stored b v6", "removed b", "removed old"), log.entries());
    }

    @Test
    void aRestoreKeepsANewerEntryAlreadyHeld() {
        store.mergeIfNewer(new StoredEntry("k", bytes("new"), 9, NOW.plusSeconds(60)));
        store.restore(new HeldValue("k", bytes("older"), 4, NOW.plusSeconds(60).toEpochMilli()));
        assertEquals(9, store.live("k", NOW).orElseThrow().version());
    }
    @Test
    void aPurgeDropsWhatHasExpiredAndKeepsARefreshedEntry() {
        ring.mergeIfNewer(new StoredEntry("soon", new byte[1], 1, NOW.plusSeconds(1)));
        ring.mergeIfNewer(new StoredEntry("later", new byte[1], 1, NOW.plusSeconds(10)));
        ring.mergeIfNewer(new StoredEntry("refreshed", new byte[1], 1, NOW.plusSeconds(1)));
        ring.mergeIfNewer(new StoredEntry("refreshed", new byte[1], 2, NOW.plusSeconds(20)));
        ring.mergeIfNewer(new StoredEntry("removed", new byte[1], 1, NOW.plusSeconds(1)));
        ring.removeIfNotNewer("removed", 1);

        assertEquals(0, ring.purgeExpired(NOW));
        assertEquals(1, ring.purgeExpired(NOW.plusSeconds(5)), "only 'soon': 'refreshed' expires later now");
        assertEquals(Set.of("later", "refreshed"), new TreeSet<>(keysOf(ring.liveWhere(NOW, id -> true))));
        assertEquals(1, ring.purgeExpired(NOW.plusSeconds(15)));
        assertEquals(1, ring.purgeExpired(NOW.plusSeconds(25)));
        assertEquals(0, ring.size());
    }

    @Test
    void theLiveChangesSinceAMarkAreThoseStoredAfterItInTheRangeAsked() {
        for (int i = 0; i < 50; i++) {
            put("k" + i, 1, NOW.plusSeconds(60));
        }
        long mark = ring.changeMark();
        ring.mergeIfNewer(new StoredEntry("k3", new byte[1], 2, NOW.plusSeconds(60)));
        ring.mergeIfNewer(new StoredEntry("k4", new byte[1], 2, NOW.minusSeconds(1)));
        put("new", 1, NOW.plusSeconds(60));
        BigInteger newId = small.idOf("new");

        assertEquals(Set.of("k3", "new"), new TreeSet<>(keysOf(ring.liveChangedSince(mark, NOW, id -> true))),
                "k4's new version has already expired");
        assertEquals(List.of("new"), keysOf(ring.liveChangedSince(mark, NOW, newId::equals)));
        assertTrue(ring.liveChangedSince(ring.changeMark(), NOW, id -> true).isEmpty());
    }
}
