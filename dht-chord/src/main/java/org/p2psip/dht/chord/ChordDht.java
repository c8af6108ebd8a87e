package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtException;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.Placement;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.overlay.NettyOverlayTransport;
import org.p2psip.core.overlay.OverlayException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Chord ring node behind the DHT SPI.
 *
 * <ul>
 *   <li>Ring maintenance is Zave's corrected protocol ({@link RingState},
 *       {@link RingMaintenance}), run every {@code stabilize-ms} on this
 *       node's single owner thread; Netty threads only decode and hand off.</li>
 *   <li>A key lives at its successor (the owner) and on the next
 *       {@code replicas - 1} successors. Conditional writes run at the owner,
 *       which alone decides versions (so no update is lost), and are
 *       acknowledged only after the owner has pushed them to its replicas.
 *       A node that is not the owner refuses, and the caller looks up
 *       again.</li>
 *   <li>Reads go to the owner and fall back to the replicas in order.</li>
 *   <li>Keys follow ownership: when a node joins between its predecessor and
 *       this node, this node hands it the keys it now owns; when the
 *       predecessor dies, this node already holds replicas of its keys and
 *       re-replicates them; a node that leaves gracefully hands its keys to
 *       its successor first. Expired values are purged every round.</li>
 *   <li>Every lookup's hop count goes into {@link #lookupStats()}.</li>
 * </ul>
 */
public final class ChordDht implements Dht {

    private static final Logger LOG = LoggerFactory.getLogger(ChordDht.class);
    /** Every this many rounds the owner re-pushes its keys to its replicas, in case a push was lost. */
    private static final int ANTI_ENTROPY_ROUNDS = 20;
    private static final Duration RETRY_PAUSE = Duration.ofMillis(50);
    private static final Duration LEAVE_BOUND = Duration.ofSeconds(2);

    private final IdSpace space = IdSpace.SHA1;
    private final Clock clock;
    private final int replicas;
    private final ChordOptions options;
    private final ScheduledExecutorService owner;
    private final RingState state;
    private final KeyStore store;
    private final LookupStats stats = new LookupStats();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Peer selfPeer;
    private NettyOverlayTransport transport;
    private ChordClient client;
    private RingMaintenance maintenance;
    private Optional<NodeRef> lastPredecessor = Optional.empty();
    private List<NodeRef> lastReplicaTargets = List.of();
    private long rounds;
    private boolean roundRunning;
    private List<org.p2psip.core.net.HostPort> bootstrap = List.of();
    /**
     * Recent lookup answers by key id, so a read-modify-write goes straight
     * to the owner; dropped on any ring change, refusal or silence, so a
     * stale entry costs one retry at most.
     */
    private final java.util.Map<BigInteger, LookupResult> routes = java.util.Collections.synchronizedMap(
            new java.util.LinkedHashMap<>(256, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(java.util.Map.Entry<BigInteger, LookupResult> eldest) {
                    return size() > ROUTE_CACHE_SIZE;
                }
            });
    private static final int ROUTE_CACHE_SIZE = 10_000;

    ChordDht(NodeRef self, Clock clock, int replicas, ChordOptions options) {
        this.clock = clock;
        this.replicas = replicas;
        this.options = options;
        this.owner = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "chord-" + self.overlay().port());
            t.setDaemon(true);
            return t;
        });
        this.state = new RingState(space, self, options.successors());
        this.store = new KeyStore(new VersionClock(self.id().longValue()));
        this.selfPeer = peerOf(self);
    }

    /** Wires the transport in once it is bound (the transport's handler is this node). */
    void attach(NettyOverlayTransport transport) {
        this.transport = transport;
        this.client = new ChordClient(transport, options.rpcTimeout());
        this.maintenance = new RingMaintenance(state, client, owner);
        maintenance.onChange(s -> ringChanged());
    }

    /** Joins through the first bootstrap member that answers; fails once all have been tried. */
    CompletableFuture<Void> join(List<org.p2psip.core.net.HostPort> bootstrap) {
        this.bootstrap = List.copyOf(bootstrap);
        if (bootstrap.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return joinThroughAny(bootstrap);
    }

    /**
     * Tries each member in turn. A member that answers too slowly (a starved
     * machine, a burst of joins) is not a missing one, so a round that ended
     * in timeouts is tried again; the provider's start timeout bounds the
     * whole join. A refusal, an unreachable port or a closed node ends it.
     */
    private CompletableFuture<Void> joinThroughAny(List<org.p2psip.core.net.HostPort> bootstrap) {
        CompletableFuture<Void> attempt = CompletableFuture.failedFuture(new IllegalStateException("no bootstrap"));
        for (org.p2psip.core.net.HostPort member : bootstrap) {
            // The member's id is not known yet; the lookup only needs its address.
            NodeRef ref = new NodeRef(BigInteger.ONE.negate(), member);
            attempt = attempt.exceptionallyCompose(e -> maintenance.join(ref));
        }
        return attempt.exceptionallyCompose(e -> timedOut(e) && !closed.get()
                ? joinThroughAny(bootstrap)
                : CompletableFuture.failedFuture(e));
    }

    private static boolean timedOut(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return cause instanceof OverlayException o && o.reason() == OverlayException.Reason.TIMEOUT;
    }

    void startMaintenance() {
        long period = options.stabilizeEvery().toMillis();
        owner.scheduleWithFixedDelay(this::round, 0, period, TimeUnit.MILLISECONDS);
    }

    /** One maintenance round; never two at once, so a slow peer delays rounds instead of piling them up. */
    private void round() {
        if (roundRunning || closed.get()) {
            return;
        }
        roundRunning = true;
        rounds++;
        store.purgeExpired(clock.instant());
        CompletableFuture<Void> rejoin = CompletableFuture.completedFuture(null);
        if (state.successor().equals(state.self()) && state.predecessor().isEmpty() && !bootstrap.isEmpty()) {
            // Alone although told of other members: every successor died at once (more than r - 1
            // adjacent failures, which Zave's model excludes) or a partition cut this node off.
            // Join again rather than stay a ring of one beside the real ring.
            rejoin = join(bootstrap).exceptionally(e -> null);
        }
        rejoin.thenCompose(v -> maintenance.stabilize())
                .thenCompose(v -> maintenance.checkPredecessor())
                .thenCompose(v -> maintenance.fixFinger())
                .whenCompleteAsync((v, e) -> {
                    roundRunning = false;
                    if (e != null) {
                        LOG.debug("maintenance round failed: {}", e.toString());
                    }
                    if (rounds % ANTI_ENTROPY_ROUNDS == 0) {
                        pushOwnedToReplicas(replicaTargets());
                    }
                }, owner);
    }

    // ---- key movement ------------------------------------------------------------------------

    /** On the owner thread, after stabilize or rectify changed the ring as this node sees it. */
    private void ringChanged() {
        routes.clear();
        Optional<NodeRef> pred = state.predecessor();
        Optional<NodeRef> oldPred = lastPredecessor;
        lastPredecessor = pred;
        if (pred.isPresent() && oldPred.isPresent() && !pred.equals(oldPred)
                && space.betweenOpen(oldPred.get().id(), pred.get().id(), state.self().id())) {
            // A node joined between the old predecessor and this node: it now owns (old, new].
            NodeRef joiner = pred.get();
            BigInteger from = oldPred.get().id();
            List<StoredEntry> moved = store.entries(e -> space.betweenRightClosed(from, space.idOf(e.key()),
                    joiner.id()));
            push(joiner, moved, List.of());
        }
        List<NodeRef> targets = replicaTargets();
        if (pred.isPresent() && (!pred.equals(oldPred) || !targets.equals(lastReplicaTargets))) {
            // Ownership grew (dead predecessor) or the replica set changed: bring every replica up to date.
            pushOwnedToReplicas(targets);
        }
        lastReplicaTargets = targets;
    }

    private List<NodeRef> replicaTargets() {
        List<NodeRef> out = new ArrayList<>();
        for (NodeRef n : state.successors()) {
            if (out.size() >= replicas - 1) {
                break;
            }
            if (!n.equals(state.self()) && !out.contains(n)) {
                out.add(n);
            }
        }
        return out;
    }

    private void pushOwnedToReplicas(List<NodeRef> targets) {
        if (state.predecessor().isEmpty() || targets.isEmpty()) {
            return;
        }
        Instant now = clock.instant();
        List<StoredEntry> owned = store.entries(e -> e.liveAt(now) && state.owns(space.idOf(e.key())));
        for (NodeRef t : targets) {
            push(t, owned, List.of());
        }
    }

    /** Sends entries in frames well under the size bound. */
    private CompletableFuture<Void> push(NodeRef to, List<StoredEntry> entries, List<StoredEntry> removals) {
        if (entries.isEmpty() && removals.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        List<StoredEntry> batch = new ArrayList<>();
        long bytes = 0;
        long limit = options.maxPayloadBytes() / 2;
        for (StoredEntry e : entries) {
            long size = e.value().length + e.key().length() * 3L + 32;
            if (!batch.isEmpty() && bytes + size > limit) {
                sent.add(client.replicate(to, batch, List.of()));
                batch = new ArrayList<>();
                bytes = 0;
            }
            batch.add(e);
            bytes += size;
        }
        sent.add(client.replicate(to, batch, removals));
        return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
    }

    // ---- requests from other nodes -------------------------------------------------------------

    /** Decodes on the I/O thread, answers on the owner thread. */
    CompletableFuture<byte[]> handle(int type, byte[] payload) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(new IllegalStateException("node is leaving"));
        }
        ChordWire.In in = new ChordWire.In(payload);
        return switch (type) {
            case ChordWire.NEXT_HOP -> {
                BigInteger id = in.id();
                yield onOwner(() -> {
                    HopReply r = state.nextHop(id);
                    return new ChordWire.Out().flag(r.done()).node(r.node()).nodes(r.successors()).bytes();
                });
            }
            case ChordWire.NEIGHBOURS -> onOwner(() -> new ChordWire.Out().optionalNode(state.predecessor())
                    .nodes(state.successors()).bytes());
            case ChordWire.NOTIFY -> {
                NodeRef candidate = in.node();
                yield maintenance.notified(candidate).thenApply(v -> new byte[0]);
            }
            case ChordWire.PING -> CompletableFuture.completedFuture(new byte[0]);
            case ChordWire.GET -> {
                String key = in.text();
                yield onOwner(() -> encodeRead(store.live(key, clock.instant())));
            }
            case ChordWire.PUT_IF -> {
                String key = in.text();
                long expected = in.num();
                byte[] value = in.blob();
                Instant expiresAt = Instant.ofEpochMilli(in.num());
                yield onOwnerCompose(() -> applyPut(key, expected, value, expiresAt)).thenApply(this::encodeWrite);
            }
            case ChordWire.REMOVE_IF -> {
                String key = in.text();
                long expected = in.num();
                yield onOwnerCompose(() -> applyRemove(key, expected)).thenApply(this::encodeWrite);
            }
            case ChordWire.REPLICATE -> {
                List<StoredEntry> entries = new ArrayList<>();
                long n = in.num();
                for (long i = 0; i < n; i++) {
                    entries.add(in.entry());
                }
                List<String> removedKeys = new ArrayList<>();
                List<Long> removedVersions = new ArrayList<>();
                long m = in.num();
                for (long i = 0; i < m; i++) {
                    removedKeys.add(in.text());
                    removedVersions.add(in.num());
                }
                yield onOwner(() -> {
                    entries.forEach(store::mergeIfNewer);
                    for (int i = 0; i < removedKeys.size(); i++) {
                        store.removeIfNotNewer(removedKeys.get(i), removedVersions.get(i));
                    }
                    return new byte[0];
                });
            }
            case ChordWire.LEAVING -> {
                NodeRef leaver = in.node();
                Optional<NodeRef> heir = in.optionalNode();
                yield onOwner(() -> {
                    state.predecessorHandedOver(leaver, heir.orElse(null));
                    state.forget(leaver);
                    ringChanged();
                    return new byte[0];
                });
            }
            default -> CompletableFuture.failedFuture(new IllegalArgumentException("unknown chord message " + type));
        };
    }

    private static byte[] encodeRead(Optional<StoredEntry> e) {
        ChordWire.Out out = new ChordWire.Out().flag(e.isPresent());
        e.ifPresent(out::entry);
        return out.bytes();
    }

    private byte[] encodeWrite(ChordClient.WriteAnswer a) {
        return new ChordWire.Out().code(a.status()).num(a.version()).bytes();
    }

    /** At the owner: check ownership, apply, push to the replicas, then answer. */
    private CompletableFuture<ChordClient.WriteAnswer> applyPut(String key, long expected, byte[] value,
                                                               Instant expiresAt) {
        if (!state.owns(space.idOf(key))) {
            return CompletableFuture.completedFuture(new ChordClient.WriteAnswer(ChordWire.NOT_OWNER, 0));
        }
        KeyStore.Outcome o = store.putIfVersion(key, expected, value, expiresAt, clock.instant());
        if (!o.applied()) {
            return CompletableFuture.completedFuture(new ChordClient.WriteAnswer(ChordWire.CONFLICT, 0));
        }
        StoredEntry written = o.written().orElseThrow();
        return replicated(List.of(written), List.of())
                .thenApply(v -> new ChordClient.WriteAnswer(ChordWire.APPLIED, written.version()));
    }

    private CompletableFuture<ChordClient.WriteAnswer> applyRemove(String key, long expected) {
        if (!state.owns(space.idOf(key))) {
            return CompletableFuture.completedFuture(new ChordClient.WriteAnswer(ChordWire.NOT_OWNER, 0));
        }
        KeyStore.Outcome o = store.removeIfVersion(key, expected, clock.instant());
        if (!o.applied()) {
            return CompletableFuture.completedFuture(new ChordClient.WriteAnswer(ChordWire.CONFLICT, 0));
        }
        StoredEntry tombstone = new StoredEntry(key, new byte[0], o.removedVersion(), Instant.EPOCH);
        return replicated(List.of(), List.of(tombstone))
                .thenApply(v -> new ChordClient.WriteAnswer(ChordWire.APPLIED, o.removedVersion()));
    }

    /**
     * Pushes a write to every current replica and completes when each has
     * answered or been found dead (a dead replica is replaced by stabilize,
     * and the new one is brought up to date by {@link #ringChanged}).
     */
    private CompletableFuture<Void> replicated(List<StoredEntry> entries, List<StoredEntry> removals) {
        List<CompletableFuture<Void>> acks = new ArrayList<>();
        for (NodeRef t : replicaTargets()) {
            acks.add(client.replicate(t, entries, removals).exceptionally(e -> null));
        }
        return CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new));
    }

    // ---- the SPI -------------------------------------------------------------------------------

    @Override
    public String backendName() {
        return ChordDhtProvider.NAME;
    }

    @Override
    public Peer self() {
        return selfPeer;
    }

    @Override
    public CompletableFuture<Optional<VersionedValue>> get(String key) {
        return withRetries("get " + key, found -> readFrom(found, 0, key).thenApply(e -> e.filter(
                x -> x.liveAt(clock.instant())).map(x -> new VersionedValue(x.value().clone(), x.version(),
                x.expiresAt()))), key);
    }

    /** The owner first, then each replica in take-over order. */
    private CompletableFuture<Optional<StoredEntry>> readFrom(LookupResult found, int i, String key) {
        List<NodeRef> order = new ArrayList<>();
        order.add(found.owner());
        order.addAll(found.successors().subList(0, Math.min(found.successors().size(), replicas - 1)));
        if (i >= order.size()) {
            return CompletableFuture.failedFuture(new OverlayException(OverlayException.Reason.UNREACHABLE,
                    "no holder of " + key + " answered"));
        }
        NodeRef at = order.get(i);
        CompletableFuture<Optional<StoredEntry>> read = at.equals(state.self())
                ? onOwner(() -> store.live(key, clock.instant()))
                : client.get(at, key);
        return read.exceptionallyCompose(e -> readFrom(found, i + 1, key));
    }

    @Override
    public CompletableFuture<Boolean> putIfVersion(String key, long expectedVersion, byte[] value, Instant expiresAt) {
        byte[] copy = value.clone();
        return withRetries("put " + key, found -> {
            CompletableFuture<ChordClient.WriteAnswer> answer = found.owner().equals(state.self())
                    ? onOwnerCompose(() -> applyPut(key, expectedVersion, copy, expiresAt))
                    : client.putIfVersion(found.owner(), key, expectedVersion, copy, expiresAt);
            return answer.thenApply(ChordDht::verdict);
        }, key);
    }

    @Override
    public CompletableFuture<Boolean> removeIfVersion(String key, long expectedVersion) {
        return withRetries("remove " + key, found -> {
            CompletableFuture<ChordClient.WriteAnswer> answer = found.owner().equals(state.self())
                    ? onOwnerCompose(() -> applyRemove(key, expectedVersion))
                    : client.removeIfVersion(found.owner(), key, expectedVersion);
            return answer.thenApply(ChordDht::verdict);
        }, key);
    }

    private static boolean verdict(ChordClient.WriteAnswer a) {
        if (a.status() == ChordWire.NOT_OWNER) {
            throw new CompletionException(new NotOwner());
        }
        return a.status() == ChordWire.APPLIED;
    }

    /** The node asked no longer (or not yet) owns the key: look it up again. */
    private static final class NotOwner extends RuntimeException {
        NotOwner() {
            super("not the owner", null, false, false);
        }
    }

    @Override
    public CompletableFuture<Placement> placement(String key) {
        return withRetries("placement " + key, found -> {
            List<Peer> reps = found.successors().stream().filter(n -> !n.equals(found.owner()))
                    .limit(replicas - 1L).map(ChordDht::peerOf).toList();
            return CompletableFuture.completedFuture(new Placement(peerOf(found.owner()), reps));
        }, key);
    }

    /**
     * Looks the key up and runs {@code action} at what it found; on a dead
     * node, a refusal or a failed lookup, pauses and tries again until the
     * operation timeout.
     */
    private <T> CompletableFuture<T> withRetries(String what, Function<LookupResult, CompletableFuture<T>> action,
                                                 String key) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(new IllegalStateException("chord node " + selfPeer.id()
                    + " is closed"));
        }
        long deadline = System.nanoTime() + options.operationTimeout().toNanos();
        return attempt(what, action, space.idOf(key), deadline, null);
    }

    private <T> CompletableFuture<T> attempt(String what, Function<LookupResult, CompletableFuture<T>> action,
                                             BigInteger id, long deadline, Throwable last) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(new IllegalStateException("chord node " + selfPeer.id()
                    + " is closed"));
        }
        if (System.nanoTime() > deadline) {
            return CompletableFuture.failedFuture(new DhtException("chord " + what + " failed within "
                    + options.operationTimeout().toMillis() + " ms: " + (last == null ? "no answer" : last.getMessage()),
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
                    CompletableFuture.delayedExecutor(RETRY_PAUSE.toMillis(), TimeUnit.MILLISECONDS, owner)
                            .execute(() -> attempt(what, action, id, deadline, cause).whenComplete((v, x) -> {
                                if (x != null) {
                                    retry.completeExceptionally(x);
                                } else {
                                    retry.complete(v);
                                }
                            }));
                    return retry;
                });
    }

    private <T> CompletableFuture<T> onOwner(Supplier<T> action) {
        try {
            return CompletableFuture.supplyAsync(action, owner);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new IllegalStateException("chord node is closed"));
        }
    }

    private <T> CompletableFuture<T> onOwnerCompose(Supplier<CompletableFuture<T>> action) {
        return onOwner(action).thenCompose(f -> f);
    }

    // ---- introspection -------------------------------------------------------------------------

    /** Hops per lookup so far (the metric the issue asks for). */
    public LookupStats.Snapshot lookupStats() {
        return stats.snapshot();
    }

    /** A copy of this node's ring state, taken on its owner thread, for invariant checks. */
    public RingState ringSnapshot() {
        return onOwner(() -> {
            RingState copy = new RingState(space, state.self(), state.successorListLength());
            List<NodeRef> succ = state.successors();
            copy.adoptSuccessor(succ.get(0), succ.subList(1, succ.size()));
            state.predecessor().ifPresent(p -> copy.rectify(p, false));
            return copy;
        }).join();
    }

    /** Number of values held here, as owner or replica. */
    public int storedValues() {
        return onOwner(store::size).join();
    }

    public NodeRef node() {
        return state.self();
    }

    static Peer peerOf(NodeRef n) {
        return new Peer(n.id().toString(16), n.sip());
    }

    // ---- leaving -------------------------------------------------------------------------------

    /**
     * Graceful leave: hands every key this node holds to its successor,
     * tells its successor and predecessor it is going, then closes. Bounded,
     * so a broken ring cannot hold a shutdown up.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            CompletableFuture<Void> farewell = CompletableFuture.supplyAsync(() -> {
                NodeRef succ = state.successor();
                if (succ.equals(state.self())) {
                    return CompletableFuture.<Void>completedFuture(null);
                }
                List<StoredEntry> all = store.entries(e -> e.liveAt(clock.instant()));
                CompletableFuture<Void> handOff = push(succ, all, List.of())
                        .thenCompose(v -> client.leaving(succ, state.self(), state.predecessor()));
                CompletableFuture<Void> toPred = state.predecessor().filter(p -> !p.equals(succ))
                        .map(p -> client.leaving(p, state.self(), state.predecessor()))
                        .orElse(CompletableFuture.completedFuture(null));
                return CompletableFuture.allOf(handOff.exceptionally(e -> null), toPred.exceptionally(e -> null));
            }, owner).thenCompose(f -> f);
            farewell.get(LEAVE_BOUND.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.debug("graceful leave of {} incomplete: {}", selfPeer.id(), e.toString());
        }
        crash();
    }

    /** Stops at once with no goodbye, as a killed process would (for tests of failure handling). */
    void crash() {
        closed.set(true);
        owner.shutdownNow();
        if (transport != null) {
            transport.close();
        }
    }
}
