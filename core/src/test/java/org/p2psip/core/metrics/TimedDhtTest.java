package org.p2psip.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtException;
import org.p2psip.core.dht.KeyPlacement;
import org.p2psip.core.dht.KeyRangeSet;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.Placement;
import org.p2psip.core.dht.VersionedValue;

class TimedDhtTest {

    private static final Peer SELF = new Peer("self", Optional.empty());

    /** Answers each call with a future the test completes when it likes. */
    private static final class PendingDht implements Dht {
        final Deque<CompletableFuture<?>> pending = new ArrayDeque<>();
        boolean closed;
        Optional<KeyRangeSet> owned = Optional.empty();

        private <T> CompletableFuture<T> next() {
            CompletableFuture<T> f = new CompletableFuture<>();
            pending.add(f);
            return f;
        }

        @Override
        public String backendName() {
            return "pending";
        }

        @Override
        public Peer self() {
            return SELF;
        }

        @Override
        public CompletableFuture<Optional<VersionedValue>> get(String key) {
            return next();
        }

        @Override
        public CompletableFuture<Boolean> putIfVersion(String key, long expectedVersion, byte[] value, Instant at) {
            return next();
        }

        @Override
        public CompletableFuture<Boolean> removeIfVersion(String key, long expectedVersion) {
            return next();
        }

        @Override
        public CompletableFuture<Placement> placement(String key) {
            if ("throw".equals(key)) {
                throw new IllegalStateException("closed");
            }
            return next();
        }

        @Override
        public Optional<KeyRangeSet> ownedRanges() {
            return owned;
        }

        @Override
        public long storedEntries() {
            return 42;
        }

        @Override
        public long peersWrittenOff() {
            return 7;
        }

        @Override
        public void close() {
            closed = true;
        }

        @SuppressWarnings("unchecked")
        <T> CompletableFuture<T> oldest() {
            return (CompletableFuture<T>) pending.removeFirst();
        }
    }

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final PendingDht backend = new PendingDht();
    private final DhtLatencies latencies = new DhtLatencies();
    private final TimedDht dht = new TimedDht(backend, latencies, nanos::get);

    private LatencySnapshot series(DhtOperation op, DhtOutcome outcome) {
        return latencies.snapshot().stream().filter(s -> s.operation() == op && s.outcome() == outcome)
                .findFirst().orElseThrow().latency();
    }

    private long total() {
        return latencies.snapshot().stream().mapToLong(s -> s.latency().count()).sum();
    }

    @Test
    void aReadIsTimedFromTheCallToItsCompletionAndCountsAsOk() {
        CompletableFuture<Optional<VersionedValue>> answer = dht.get("k");
        nanos.addAndGet(4_000_000);
        backend.<Optional<VersionedValue>>oldest().complete(Optional.empty());

        assertEquals(Optional.empty(), answer.join());
        LatencySnapshot s = series(DhtOperation.GET, DhtOutcome.OK);
        assertEquals(1, s.count());
        assertEquals(4_000_000, s.sumNanos());
        assertEquals(0, s.cumulativeCounts().get(2), "4 ms is above le 0.0025");
        assertEquals(1, s.cumulativeCounts().get(3), "and within le 0.005");
    }

    @Test
    void aWriteThatCompletesTrueIsOkAndOneThatCompletesFalseIsAConflict() {
        CompletableFuture<Boolean> written = dht.putIfVersion("k", Dht.ABSENT, new byte[] {1}, Instant.EPOCH);
        CompletableFuture<Boolean> lost = dht.putIfVersion("k", Dht.ABSENT, new byte[] {2}, Instant.EPOCH);
        nanos.addAndGet(1_000_000);
        backend.<Boolean>oldest().complete(true);
        backend.<Boolean>oldest().complete(false);

        assertTrue(written.join());
        assertFalse(lost.join());
        assertEquals(1, series(DhtOperation.PUT, DhtOutcome.OK).count());
        assertEquals(1, series(DhtOperation.PUT, DhtOutcome.CONFLICT).count());
        assertEquals(1_000_000, series(DhtOperation.PUT, DhtOutcome.CONFLICT).sumNanos());
    }

    @Test
    void aRemoveThatLosesItsCompareAndSetIsAConflict() {
        CompletableFuture<Boolean> removed = dht.removeIfVersion("k", 7);
        backend.<Boolean>oldest().complete(false);

        assertFalse(removed.join());
        assertEquals(1, series(DhtOperation.REMOVE, DhtOutcome.CONFLICT).count());
        assertEquals(1, total());
    }

    @Test
    void aFailedOperationIsAnErrorAndTheCallerSeesTheBackendsOwnException() {
        CompletableFuture<Boolean> removed = dht.removeIfVersion("k", 7);
        CompletableFuture<Placement> placed = dht.placement("k");
        nanos.addAndGet(2_000_000_000L);
        DhtException timeout = new DhtException("timed out");
        backend.<Boolean>oldest().completeExceptionally(timeout);
        backend.<Placement>oldest().completeExceptionally(timeout);

        AtomicReference<Throwable> seen = new AtomicReference<>();
        removed.whenComplete((v, e) -> seen.set(e));
        assertSame(timeout, seen.get(), "not wrapped in a CompletionException");
        assertTrue(placed.isCompletedExceptionally());
        assertEquals(1, series(DhtOperation.REMOVE, DhtOutcome.ERROR).count());
        LatencySnapshot placement = series(DhtOperation.PLACEMENT, DhtOutcome.ERROR);
        assertEquals(1, placement.count());
        assertEquals(0, placement.cumulativeCounts().get(17), "2 s is above le 1");
        assertEquals(1, placement.cumulativeCounts().get(18), "and within le 2.5");
    }

    @Test
    void aBackendThatThrowsInsteadOfFailingTheFutureIsAnErrorAndStillThrows() {
        assertThrows(IllegalStateException.class, () -> dht.placement("throw"));

        assertEquals(1, series(DhtOperation.PLACEMENT, DhtOutcome.ERROR).count());
    }

    @Test
    void theDurationIsRecordedBeforeTheCallersContinuationRuns() {
        CompletableFuture<Placement> placed = dht.placement("k");
        AtomicLong countSeenByCaller = new AtomicLong(-1);
        placed.thenRun(() -> {
            countSeenByCaller.set(series(DhtOperation.PLACEMENT, DhtOutcome.OK).count());
            nanos.addAndGet(60_000_000_000L); // slow caller work that must not count as DHT time
        });
        backend.<Placement>oldest().complete(new Placement(SELF, List.of()));

        assertEquals(1, countSeenByCaller.get());
        assertEquals(0, series(DhtOperation.PLACEMENT, DhtOutcome.OK).sumNanos());
    }

    @Test
    void nothingIsRecordedUntilTheOperationCompletes() {
        CompletableFuture<Optional<VersionedValue>> answer = dht.get("k");

        assertFalse(answer.isDone());
        assertEquals(0, total());
    }

    @Test
    void theSynchronousCallsPassThroughUntimed() {
        assertEquals("pending", dht.backendName());
        assertSame(SELF, dht.self());
        assertEquals(42, dht.storedEntries());
        assertEquals(7, dht.peersWrittenOff(), "the node's metric reads the backend's count through the timing");
        dht.close();

        assertTrue(backend.closed);
        assertEquals(0, total());
    }

    @Test
    void everySnapshotListsEachOperationWithTheOutcomesItCanHave() {
        List<String> labels = latencies.snapshot().stream()
                .map(s -> s.operation().label() + "/" + s.outcome().label()).toList();

        assertEquals(List.of("get/ok", "get/error", "put/ok", "put/conflict", "put/error", "remove/ok",
                "remove/conflict", "remove/error", "placement/ok", "placement/error"), labels);
        assertThrows(IllegalArgumentException.class,
                () -> latencies.record(DhtOperation.GET, DhtOutcome.CONFLICT, 1));
    }

    @Test
    void keyOperationsAreCountedByWhetherTheNodeOwnedTheKey() {
        dht.get("a@x");
        assertEquals(1, latencies.keyOwnership().get(KeyOwnership.UNKNOWN), "no ranges: cannot tell");

        long point = KeyPlacement.point("a@x");
        backend.owned = Optional.of(KeyRangeSet.arc(point - 1, point));
        dht.get("a@x");
        dht.putIfVersion("a@x#cred", Dht.ABSENT, new byte[] {1}, Instant.EPOCH);
        dht.removeIfVersion("b@y", 3);
        dht.placement("b@y");

        assertEquals(2, latencies.keyOwnership().get(KeyOwnership.LOCAL), "the key and one of its group");
        assertEquals(1, latencies.keyOwnership().get(KeyOwnership.REMOTE));
        assertEquals(1, latencies.keyOwnership().get(KeyOwnership.UNKNOWN), "placement is no key operation");
    }
}
