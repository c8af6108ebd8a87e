package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.p2psip.core.dht.DhtException;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.Placement;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.overlay.OverlayException;

/**
 * The SPI's operations from the calling node's side: each looks the key's
 * owner up (through a small route cache), runs there — on this node's
 * {@link FencedWrites} when it is the owner itself — and on a dead node, a
 * refusal or a failed lookup pauses on the owner thread and tries again,
 * each pause twice the one before (up to {@link #MAX_RETRY_PAUSE}), until
 * the operation timeout. Reads go to the owner and fall back to the
 * replicas in take-over order; writes go to the owner only. Every lookup's
 * hop count goes into the node's {@link LookupStats}.
 */
final class KeyRouter {

    /** The first pause before an operation is tried again; each further one doubles, up to {@link #MAX_RETRY_PAUSE}. */
    static final Duration RETRY_PAUSE = Duration.ofMillis(50);
    /**
     * The longest pause between two tries. While a range changes hands its
     * keys are refused for as long as the new owner takes to catch up; every
     * waiting operation retrying each 50 ms made twenty lookups a second
     * each, on the very nodes doing the hand-over (issue 33).
     */
    static final Duration MAX_RETRY_PAUSE = Duration.ofMillis(800);
    private static final int ROUTE_CACHE_SIZE = 10_000;

    private final RingState ring;
    private final IdSpace space;
    private final RingMaintenance maintenance;
    private final RangeCustody custody;
    private final FencedWrites writes;
    private final ChordClient client;
    private final OwnerThread owner;
    private final Clock clock;
    private final LongSupplier nanos;
    private final Duration operationTimeout;
    private final int replicas;
    private final LookupStats stats;
    /**
     * Recent lookup answers by key id, so a read-modify-write goes straight
     * to the owner; dropped on any ring change, refusal or silence, so a
     * stale entry costs one retry at most. Synchronized: callers' threads
     * and the owner thread both touch it.
     */
    private final Map<BigInteger, LookupResult> routes = Collections.synchronizedMap(
            new LinkedHashMap<>(256, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<BigInteger, LookupResult> eldest) {
                    return size() > ROUTE_CACHE_SIZE;
                }
            });

    /**
     * @param nanos            the monotonic clock the operation timeout runs on
     * @param operationTimeout how long an operation keeps retrying
     * @param replicas         copies of every key, the owner's included
     */
    KeyRouter(RingState ring, RingMaintenance maintenance, RangeCustody custody, FencedWrites writes,
              ChordClient client, OwnerThread owner, Clock clock, LongSupplier nanos, Duration operationTimeout,
              int replicas, LookupStats stats) {
        this.ring = ring;
        this.space = ring.space();
        this.maintenance = maintenance;
        this.custody = custody;
        this.writes = writes;
        this.client = client;
        this.owner = owner;
        this.clock = clock;
        this.nanos = nanos;
        this.operationTimeout = operationTimeout;
        this.replicas = replicas;
        this.stats = stats;
    }

    /** The ring changed: every cached route may be stale. */
    void forgetRoutes() {
        routes.clear();
    }

    CompletableFuture<Optional<VersionedValue>> get(String key) {
        return withRetries("get " + key, found -> readFrom(found, 0, key).thenApply(e -> e.filter(
                x -> x.liveAt(clock.instant())).map(x -> new VersionedValue(x.value().clone(), x.version(),
                x.expiresAt()))), key);
    }

    /**
     * The owner first, then each replica in take-over order when the one
     * before could not be reached. An owner that refuses (not the owner, or
     * not caught up) sends the caller back to the lookup, not to a replica
     * that may hold an older copy.
     */
    private CompletableFuture<Optional<StoredEntry>> readFrom(LookupResult found, int i, String key) {
        List<NodeRef> order = new ArrayList<>();
        order.add(found.owner());
        order.addAll(found.successors().subList(0, Math.min(found.successors().size(), replicas - 1)));
        if (i >= order.size()) {
            return CompletableFuture.failedFuture(new OverlayException(OverlayException.Reason.UNREACHABLE,
                    "no holder of " + key + " answered"));
        }
        NodeRef at = order.get(i);
        boolean asOwner = i == 0;
        CompletableFuture<Optional<StoredEntry>> read = at.equals(ring.self())
                ? owner.compose(() -> {
                    if (asOwner && !custody.serves(space.idOf(key))) {
                        throw new NotOwner();
                    }
                    return writes.afterPendingWrite(key, () -> writes.readHere(key, asOwner));
                })
                : client.get(at, key, asOwner).thenApply(a -> {
                    if (a.status() == ChordWire.NOT_OWNER) {
                        throw new NotOwner();
                    }
                    return a.entry();
                });
        return read.exceptionallyCompose(e -> refused(e)
                ? CompletableFuture.failedFuture(e)
                : readFrom(found, i + 1, key));
    }

    CompletableFuture<Boolean> putIfVersion(String key, long expectedVersion, byte[] value, Instant expiresAt) {
        byte[] copy = value.clone();
        return withRetries("put " + key, found -> {
            CompletableFuture<ChordClient.WriteAnswer> answer = found.owner().equals(ring.self())
                    ? owner.compose(() -> writes.put(key, expectedVersion, copy, expiresAt))
                    : client.putIfVersion(found.owner(), key, expectedVersion, copy, expiresAt);
            return answer.thenApply(KeyRouter::verdict);
        }, key);
    }

    CompletableFuture<Boolean> removeIfVersion(String key, long expectedVersion) {
        return withRetries("remove " + key, found -> {
            CompletableFuture<ChordClient.WriteAnswer> answer = found.owner().equals(ring.self())
                    ? owner.compose(() -> writes.remove(key, expectedVersion))
                    : client.removeIfVersion(found.owner(), key, expectedVersion);
            return answer.thenApply(KeyRouter::verdict);
        }, key);
    }

    CompletableFuture<Placement> placement(String key) {
        return withRetries("placement " + key, found -> {
            List<Peer> reps = found.successors().stream().filter(n -> !n.equals(found.owner()))
                    .limit(replicas - 1L).map(ChordDht::peerOf).toList();
            return CompletableFuture.completedFuture(new Placement(ChordDht.peerOf(found.owner()), reps));
        }, key);
    }

    private static boolean verdict(ChordClient.WriteAnswer a) {
        if (a.status() == ChordWire.NOT_OWNER) {
            throw new CompletionException(new NotOwner());
        }
        return a.status() == ChordWire.APPLIED;
    }

    private static boolean refused(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return cause instanceof NotOwner;
    }

    /** The node asked no longer (or not yet) owns the key: look it up again. */
    private static final class NotOwner extends RuntimeException {
        NotOwner() {
            super("not the owner", null, false, false);
        }
    }

    /**
     * Looks the key up and runs {@code action} at what it found; on a dead
     * node, a refusal or a failed lookup, pauses and tries again until the
     * operation timeout.
     */
    private <T> CompletableFuture<T> withRetries(String what, Function<LookupResult, CompletableFuture<T>> action,
                                                 String key) {
        if (owner.closed()) {
            return closed();
        }
        long deadline = nanos.getAsLong() + operationTimeout.toNanos();
        return attempt(what, action, space.idOf(key), deadline, null, 0);
    }

    /** The pause before try {@code tries + 1}: {@link #RETRY_PAUSE} doubled per try so far, at most {@link #MAX_RETRY_PAUSE}. */
    static Duration retryPause(int tries) {
        long millis = RETRY_PAUSE.toMillis() << Math.min(tries, 16);
        return Duration.ofMillis(Math.min(MAX_RETRY_PAUSE.toMillis(), millis));
    }

    private <T> CompletableFuture<T> attempt(String what, Function<LookupResult, CompletableFuture<T>> action,
                                             BigInteger id, long deadline, Throwable last, int tries) {
        if (owner.closed()) {
            return closed();
        }
        if (nanos.getAsLong() > deadline) {
            return CompletableFuture.failedFuture(new DhtException("chord " + what + " failed within "
                    + operationTimeout.toMillis() + " ms: " + (last == null ? "no answer" : last.getMessage()),
                    last));
        }
        LookupResult cached = routes.get(id);
        CompletableFuture<LookupResult> route = cached != null ? CompletableFuture.completedFuture(cached)
                : maintenance.lookup(id).thenApply(found -> {
                    stats.record(found.hops());
                    routes.put(id, found);
                    return found;
                });
        return route
                .thenCompose(action)
                .exceptionallyCompose(e -> {
                    routes.remove(id);
                    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                    CompletableFuture<T> retry = new CompletableFuture<>();
                    boolean scheduled = owner.later(retryPause(tries), () -> attempt(what, action, id, deadline,
                            cause, tries + 1)
                            .whenComplete((v, x) -> {
                                if (x != null) {
                                    retry.completeExceptionally(x);
                                } else {
                                    retry.complete(v);
                                }
                            }));
                    if (!scheduled) {
                        retry.completeExceptionally(closedNode());
                    }
                    return retry;
                });
    }

    private <T> CompletableFuture<T> closed() {
        return CompletableFuture.failedFuture(closedNode());
    }

    private IllegalStateException closedNode() {
        return new IllegalStateException("chord node " + ring.self().id().toString(16) + " is closed");
    }
}
