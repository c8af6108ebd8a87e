package org.p2psip.core.metrics;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.KeyPlacement;
import org.p2psip.core.dht.KeyRangeSet;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.Placement;
import org.p2psip.core.dht.VersionedValue;

/**
 * A {@link Dht} that times every asynchronous operation of the one it wraps,
 * from the call to its completion, into {@link DhtLatencies}: {@code get},
 * {@code put} ({@link #putIfVersion}), {@code remove} ({@link #removeIfVersion})
 * and {@code placement}, each as {@link DhtOutcome#OK}, {@link DhtOutcome#CONFLICT}
 * (a conditional write that completed {@code false}) or {@link DhtOutcome#ERROR}
 * (completed exceptionally, or threw). The synchronous calls pass straight
 * through untimed.
 *
 * <p>It also counts each get, put and remove by whether this node owned
 * the key when the call was made ({@link KeyOwnership}, from the backend's
 * {@link Dht#ownedRanges}): with owner routing in front, nearly all should
 * be local.
 *
 * <p>Otherwise it is transparent: the caller's future completes with the
 * backend's own value or exception, unwrapped. It is a future of its own,
 * completed only after the duration is recorded, so the caller's
 * continuations are never counted in the operation's time (a
 * {@link CompletableFuture} runs the dependents registered last first).
 * Cancelling it does not cancel the backend's operation; the SPI gives
 * cancellation no meaning and no caller uses it.
 */
public final class TimedDht implements Dht {

    private final Dht delegate;
    private final DhtLatencies latencies;
    private final LongSupplier nanoTime;

    /**
     * @param delegate  the backend's handle; closing this closes it
     * @param latencies where the durations go
     * @param nanoTime  the time source, in nanoseconds ({@code System::nanoTime}; a manual one in tests)
     */
    public TimedDht(Dht delegate, DhtLatencies latencies, LongSupplier nanoTime) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.latencies = Objects.requireNonNull(latencies, "latencies");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    }

    @Override
    public String backendName() {
        return delegate.backendName();
    }

    @Override
    public Peer self() {
        return delegate.self();
    }

    @Override
    public CompletableFuture<Optional<VersionedValue>> get(String key) {
        countOwnership(key);
        return timed(DhtOperation.GET, () -> delegate.get(key), v -> DhtOutcome.OK);
    }

    @Override
    public CompletableFuture<Boolean> putIfVersion(String key, long expectedVersion, byte[] value, Instant expiresAt) {
        countOwnership(key);
        return timed(DhtOperation.PUT, () -> delegate.putIfVersion(key, expectedVersion, value, expiresAt),
                TimedDht::conditional);
    }

    @Override
    public CompletableFuture<Boolean> removeIfVersion(String key, long expectedVersion) {
        countOwnership(key);
        return timed(DhtOperation.REMOVE, () -> delegate.removeIfVersion(key, expectedVersion), TimedDht::conditional);
    }

    @Override
    public CompletableFuture<Placement> placement(String key) {
        return timed(DhtOperation.PLACEMENT, () -> delegate.placement(key), v -> DhtOutcome.OK);
    }

    @Override
    public Optional<KeyRangeSet> ownedRanges() {
        return delegate.ownedRanges();
    }

    @Override
    public OptionalDouble ownedShare() {
        return delegate.ownedShare();
    }

    @Override
    public long storedEntries() {
        return delegate.storedEntries();
    }

    @Override
    public List<Peer> knownPeers() {
        return delegate.knownPeers();
    }

    @Override
    public long peersWrittenOff() {
        return delegate.peersWrittenOff();
    }

    @Override
    public CompletableFuture<Void> claimShare() {
        return delegate.claimShare();
    }

    @Override
    public void close() {
        delegate.close();
    }

    private <T> CompletableFuture<T> timed(DhtOperation operation, Supplier<CompletableFuture<T>> call,
                                           Function<T, DhtOutcome> outcomeOf) {
        long start = nanoTime.getAsLong();
        CompletableFuture<T> backend;
        try {
            backend = call.get();
        } catch (RuntimeException e) {
            // The SPI asks for a failed future, but a backend that throws has still failed an operation.
            latencies.record(operation, DhtOutcome.ERROR, nanoTime.getAsLong() - start);
            throw e;
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        backend.whenComplete((value, failure) -> {
            try {
                long elapsed = nanoTime.getAsLong() - start;
                latencies.record(operation, failure != null ? DhtOutcome.ERROR : outcomeOf.apply(value), elapsed);
            } finally {
                // Whatever befalls the measurement, the caller gets the backend's answer.
                if (failure != null) {
                    result.completeExceptionally(failure);
                } else {
                    result.complete(value);
                }
            }
        });
        return result;
    }

    private void countOwnership(String key) {
        Optional<KeyRangeSet> owned = delegate.ownedRanges();
        latencies.countKey(owned.isEmpty() ? KeyOwnership.UNKNOWN
                : owned.get().contains(KeyPlacement.point(key)) ? KeyOwnership.LOCAL : KeyOwnership.REMOTE);
    }

    /** True is a write, false a lost compare-and-set; null is no answer the SPI allows. */
    private static DhtOutcome conditional(Boolean written) {
        if (written == null) {
            return DhtOutcome.ERROR;
        }
        return written ? DhtOutcome.OK : DhtOutcome.CONFLICT;
    }
}
