package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.store.HeldValue;
import org.p2psip.core.testing.RecordedValueLog;

/**
 * The holder's side of the coordinator's prepare/commit rule and of
 * republishing, with time passed in: no sockets, no clocks.
 */
class ReplicaStoreTest {

    private static final long HOLD_MILLIS = 4_000;
    private static final long EXPIRES = 3_600_000;
    private static final long T0 = ms(10_000);
    private static final List<BigInteger> HOLDERS = List.of(BigInteger.valueOf(11), BigInteger.valueOf(12));

    private final ReplicaStore store = new ReplicaStore(HOLD_MILLIS);

    private static long ms(long millis) {
        return millis * 1_000_000;
    }

    private static StoredValue value(long version, long writeId) {
        return new StoredValue(("v" + version).getBytes(StandardCharsets.UTF_8), version, EXPIRES, false, writeId);
    }

    /** What a holder answers a coordinator's STORE when the coordinator is the closest node it knows. */
    private StoreOutcome prepare(StoredValue v, long prev, long nowNanos) {
        return store.offer("k", v, prev, true, nowNanos).orElseGet(() -> {
            store.prepare("k", v, nowNanos);
            return StoreOutcome.TAKEN;
        });
    }

    private StoreOutcome commit(StoredValue v, long nowNanos) {
        return store.settle("k", v.version(), v.writeId(), false, true, nowNanos);
    }

    private StoreOutcome drop(StoredValue v, long nowNanos) {
        return store.settle("k", v.version(), v.writeId(), true, true, nowNanos);
    }

    private StoreOutcome repair(StoredValue v, long nowNanos) {
        return store.offer("k", v, ReplicaStore.REPAIR, true, nowNanos).orElseThrow();
    }

    private long visibleVersion() {
        return store.get("k").map(StoredValue::version).orElse(Dht.ABSENT);
    }

    @Test
    void aCoordinatedWriteThatPassesTheHoldersChecksAwaitsTheSenderCheck() {
        assertEquals(Optional.empty(), store.offer("k", value(100, 1), Dht.ABSENT, true, T0));
    }

    @Test
    void aHolderPreparingOneWriteRefusesAnotherOfTheSameVersion() {
        assertEquals(StoreOutcome.TAKEN, prepare(value(100, 1), Dht.ABSENT, T0));
        assertEquals(StoreOutcome.REFUSED_NEWER, prepare(value(100, 2), Dht.ABSENT, T0),
                "a second coordinator handing out the same version in the same millisecond");
        assertEquals(StoreOutcome.TAKEN, prepare(value(100, 1), Dht.ABSENT, T0), "a retransmission of the first");
    }

    @Test
    void aHolderPreparingOneWriteRefusesAnyOtherWriteOfTheKey() {
        prepare(value(100, 1), Dht.ABSENT, T0);
        assertEquals(StoreOutcome.REFUSED_NEWER, prepare(value(101, 2), Dht.ABSENT, T0));
    }

    @Test
    void aPreparedWriteStaysInvisibleUntilItsCommit() {
        prepare(value(100, 1), Dht.ABSENT, T0);
        assertEquals(Dht.ABSENT, visibleVersion());
        assertEquals(StoreOutcome.TAKEN, commit(value(100, 1), T0 + ms(10)));
        assertEquals(100, visibleVersion());
        assertArrayEquals(value(100, 1).value(), store.get("k").orElseThrow().value());
    }

    @Test
    void aCommitWithinTheHoldIsTaken() {
        prepare(value(100, 1), Dht.ABSENT, T0);
        assertEquals(StoreOutcome.TAKEN, commit(value(100, 1), T0 + ms(HOLD_MILLIS)));
    }

    @Test
    void aCommitAfterTheHoldLapsedIsRefused() {
        prepare(value(100, 1), Dht.ABSENT, T0);
        assertEquals(StoreOutcome.REFUSED_NEWER, commit(value(100, 1), T0 + ms(HOLD_MILLIS + 1)));
        assertEquals(Dht.ABSENT, visibleVersion());
    }

    @Test
    void aLapsedPreparedWriteNoLongerBlocksAnother() {
        prepare(value(100, 1), Dht.ABSENT, T0);
        long later = T0 + ms(HOLD_MILLIS + 1);
        assertEquals(StoreOutcome.TAKEN, prepare(value(200, 2), Dht.ABSENT, later));
        assertEquals(StoreOutcome.TAKEN, commit(value(200, 2), later));
        assertEquals(200, visibleVersion());
    }

    @Test
    void aCommitOfAWriteNeverPreparedIsRefused() {
        assertEquals(StoreOutcome.REFUSED_NEWER, commit(value(100, 1), T0));
        prepare(value(100, 1), Dht.ABSENT, T0);
        assertEquals(StoreOutcome.REFUSED_NEWER, commit(value(100, 2), T0), "same version, another write");
        assertEquals(Dht.ABSENT, visibleVersion());
    }

    @Test
    void aRepeatedCommitOfTheVisibleWriteIsTakenAgain() {
        prepare(value(100, 1), Dht.ABSENT, T0);
        commit(value(100, 1), T0);
        assertEquals(StoreOutcome.TAKEN, commit(value(100, 1), T0 + ms(HOLD_MILLIS * 10)));
        assertEquals(100, visibleVersion());
    }

    @Test
    void aDroppedWriteLeavesNothingVisibleAndFreesTheKey() {
        prepare(value(100, 1), Dht.ABSENT, T0);
        assertEquals(StoreOutcome.TAKEN, drop(value(100, 1), T0));
        assertEquals(Dht.ABSENT, visibleVersion());
        assertEquals(StoreOutcome.REFUSED_NEWER, commit(value(100, 1), T0), "nothing left to commit");
        assertEquals(StoreOutcome.TAKEN, prepare(value(101, 2), Dht.ABSENT, T0));
    }

    @Test
    void aDropOfAnotherWriteLeavesThePreparedOneInPlace() {
        prepare(value(100, 1), Dht.ABSENT, T0);
        assertEquals(StoreOutcome.TAKEN, drop(value(100, 2), T0));
        assertEquals(StoreOutcome.TAKEN, commit(value(100, 1), T0));
        assertEquals(100, visibleVersion());
    }

    @Test
    void aRepairOnlyMovesAHolderForward() {
        assertEquals(StoreOutcome.TAKEN, repair(value(5, 1), T0));
        assertEquals(StoreOutcome.REFUSED_NEWER, repair(value(3, 2), T0));
        assertEquals(5, visibleVersion());
        assertEquals(StoreOutcome.TAKEN, repair(value(5, 1), T0), "the same write again");
        assertEquals(StoreOutcome.REFUSED_NEWER, repair(value(5, 9), T0), "the same version of another write");
        assertEquals(StoreOutcome.TAKEN, repair(value(7, 3), T0));
        assertEquals(7, visibleVersion());
    }

    @Test
    void aCoordinatedWriteOverAVersionOlderThanTheHoldersIsRefused() {
        repair(value(5, 1), T0);
        assertEquals(StoreOutcome.REFUSED_NEWER, prepare(value(6, 2), 4, T0));
        assertEquals(StoreOutcome.REFUSED_NEWER, prepare(value(6, 2), Dht.ABSENT, T0));
        assertEquals(StoreOutcome.TAKEN, prepare(value(6, 2), 5, T0));
    }

    @Test
    void aCommitOvertakenByARepairIsRefused() {
        prepare(value(6, 1), Dht.ABSENT, T0);
        assertEquals(StoreOutcome.TAKEN, repair(value(9, 2), T0));
        assertEquals(StoreOutcome.REFUSED_NEWER, commit(value(6, 1), T0));
        assertEquals(9, visibleVersion());
    }

    @Test
    void anExpiredValueIsKeptThroughItsGraceSoItsVersionIsStillSeen() {
        repair(value(5, 1), T0);
        store.purgeExpired(EXPIRES + ReplicaStore.EXPIRED_GRACE_MILLIS);
        assertEquals(5, visibleVersion());
        store.purgeExpired(EXPIRES + ReplicaStore.EXPIRED_GRACE_MILLIS + 1);
        assertEquals(Dht.ABSENT, visibleVersion());
        assertEquals(0, store.size());
    }

    @Test
    void onlyLiveValuesNoPeerStoredWithinTheIntervalAreDueForRepublish() {
        long interval = ms(30_000);
        store.offer("peer", value(5, 1), ReplicaStore.REPAIR, true, T0);
        store.offer("mine", value(5, 2), ReplicaStore.REPAIR, false, T0);
        assertEquals(List.of("mine"), store.dueForRepublish(1_000, T0 + interval - 1, interval));
        assertEquals(List.of("mine", "peer"), store.dueForRepublish(1_000, T0 + interval, interval).stream()
                .sorted().toList());
        assertEquals(List.of(), store.dueForRepublish(EXPIRES, T0 + interval, interval), "expired values are not");
    }

    @Test
    void keysToHandOverAreTheUnexpiredOnesTombstonesIncludedAndOnlyThoseBroughtWhenAsked() {
        store.restore(new HeldValue("restored", "r".getBytes(StandardCharsets.UTF_8), 3, EXPIRES));
        store.offer("mine", value(5, 2), ReplicaStore.REPAIR, false, T0);
        store.offer("peer", value(5, 1), ReplicaStore.REPAIR, true, T0);
        store.offer("removed", new StoredValue(new byte[0], 6, EXPIRES, true, 3), ReplicaStore.REPAIR, false, T0);
        store.offer("expired", new StoredValue(new byte[0], 6, 500, false, 4), ReplicaStore.REPAIR, false, T0);
        assertEquals(List.of("mine", "peer", "removed", "restored"),
                store.unexpiredKeys(1_000, false).stream().sorted().toList());
        assertEquals(List.of("mine", "removed", "restored"), store.unexpiredKeys(1_000, true).stream().sorted()
                .toList(), "a key a peer stored here was placed by that peer");
        store.offer("mine", value(7, 5), ReplicaStore.REPAIR, true, T0);
        store.offer("mine", value(8, 6), ReplicaStore.REPAIR, false, T0);
        assertEquals(List.of("removed", "restored"), store.unexpiredKeys(1_000, true).stream().sorted().toList(),
                "once a peer stored a key, it did");
    }

    @Test
    void aPeerStoringAnotherVersionEndsThisNodesClaimToTheLatest() {
        store.offer("k", value(5, 1), ReplicaStore.REPAIR, false, T0);
        store.markCoordinated("k", 5, HOLDERS);
        assertEquals(5, store.coordinatedHere("k", HOLDERS).orElseThrow().version());
        repair(value(5, 1), T0);
        assertTrue(store.coordinatedHere("k", HOLDERS).isPresent(), "the same write republished by a peer");
        repair(value(7, 2), T0);
        assertTrue(store.coordinatedHere("k", HOLDERS).isEmpty());
    }

    @Test
    void aClaimMadeAtOtherHoldersIsNone() {
        store.offer("k", value(5, 1), ReplicaStore.REPAIR, false, T0);
        store.markCoordinated("k", 5, HOLDERS);
        assertTrue(store.coordinatedHere("k", List.of(BigInteger.valueOf(12), BigInteger.valueOf(11))).isPresent(),
                "the same holders, in any order");
        assertTrue(store.coordinatedHere("k", List.of(BigInteger.valueOf(11), BigInteger.valueOf(13))).isEmpty(),
                "a holder this node no longer sees may have taken a newer write from another coordinator");
        assertTrue(store.coordinatedHere("k", List.of(BigInteger.valueOf(11))).isEmpty());
    }

    @Test
    void aClaimToAVersionNoLongerHeldIsNone() {
        store.offer("k", value(5, 1), ReplicaStore.REPAIR, false, T0);
        store.markCoordinated("k", 4, HOLDERS);
        assertTrue(store.coordinatedHere("k", HOLDERS).isEmpty());
        store.markCoordinated("k", 5, HOLDERS);
        store.forgetCoordinated("k");
        assertTrue(store.coordinatedHere("k", HOLDERS).isEmpty());
    }

    @Test
    void aPurgedEntryTakesThisNodesClaimWithIt() {
        store.offer("k", value(5, 1), ReplicaStore.REPAIR, false, T0);
        store.markCoordinated("k", 5, HOLDERS);
        store.purgeExpired(EXPIRES + ReplicaStore.EXPIRED_GRACE_MILLIS + 1);
        store.offer("k", value(5, 1), ReplicaStore.REPAIR, false, T0);
        assertTrue(store.coordinatedHere("k", HOLDERS).isEmpty());
    }

    @Test
    void anAnswerOfAnyOtherShapeCountsAsARefusal() {
        for (StoreOutcome o : StoreOutcome.values()) {
            assertEquals(o, StoreOutcome.of(o.answer()));
        }
        assertEquals(StoreOutcome.REFUSED_NEWER, StoreOutcome.of(new byte[] {7}));
        assertEquals(StoreOutcome.REFUSED_NEWER, StoreOutcome.of(new byte[] {1, 1}));
        assertEquals(StoreOutcome.REFUSED_NEWER, StoreOutcome.of(new byte[0]));
    }

    @Test
    void everyValueKeptAndEveryTombstoneOrPurgeReachesTheLogButARestoreDoesNot() {
        RecordedValueLog log = new RecordedValueLog();
        ReplicaStore logged = new ReplicaStore(HOLD_MILLIS, log);
        logged.restore(new HeldValue("old", "o".getBytes(StandardCharsets.UTF_8), 3, EXPIRES));
        assertEquals(Optional.of(3L), logged.get("old").map(StoredValue::version), "restored");

        logged.offer("k", value(5, 1), ReplicaStore.REPAIR, true, T0);
        logged.offer("k", new StoredValue(new byte[0], 6, EXPIRES, true, 2), ReplicaStore.REPAIR, true, T0);
        logged.purgeExpired(EXPIRES + ReplicaStore.EXPIRED_GRACE_MILLIS + 1);

        List<String> reported = log.entries();
        assertEquals(List.of("stored k v5", "removed k"), reported.subList(0, 2), "the value, then its tombstone");
        assertEquals(Set.of("removed old", "removed k"), Set.copyOf(reported.subList(2, reported.size())),
                "both purged");
    }

    @Test
    void aRestoreKeepsANewerValueAlreadyHeld() {
        store.offer("k", value(9, 1), ReplicaStore.REPAIR, true, T0);
        store.restore(new HeldValue("k", "older".getBytes(StandardCharsets.UTF_8), 4, EXPIRES));
        assertEquals(9, store.get("k").orElseThrow().version());
    }
}
