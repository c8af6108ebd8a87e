package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.KeyRangeSet;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.Placement;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.HandOverPacing;
import org.p2psip.core.overlay.LagMonitor;
import org.p2psip.core.overlay.OverlayRuntime;
import org.p2psip.core.overlay.OverlayTransport;
import org.p2psip.core.overlay.PeerWindows;
import org.p2psip.core.overlay.SchedulingLag;
import org.p2psip.core.overlay.TimeoutSuspicion;
import org.p2psip.core.overlay.WindowedTransport;
import org.p2psip.core.store.HeldValueLog;
import org.p2psip.core.store.WriteBehindValues;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Chord ring node behind the DHT SPI: wires its parts together and runs
 * its maintenance rounds, joins and leaves.
 *
 * <ul>
 *   <li>Ring maintenance is Zave's corrected protocol ({@link RingState},
 *       {@link RingMaintenance}), run every {@code stabilize-ms}.</li>
 *   <li>Everything runs on the node's single {@link OwnerThread}; Netty
 *       threads only decode and hand off to the {@link ChordServer}. All
 *       time comes from the {@link OverlayRuntime}.</li>
 *   <li>A key lives at its successor (the owner) and on the next
 *       {@code replicas - 1} successors. What this node serves and holds,
 *       and what a ring change makes it do, is its {@link RangeCustody};
 *       {@link KeyMover} moves the keys accordingly.</li>
 *   <li>Conditional writes run at the owner and pass the first replica's
 *       fence ({@link FencedWrites}); callers reach the owner through
 *       {@link KeyRouter}, which retries and counts lookup hops.</li>
 *   <li>Calls to each peer are bounded by an AIMD window
 *       ({@link WindowedTransport}); a call beyond it fails at once and is
 *       retried, and condemns nobody.</li>
 *   <li>The owner thread measures its own lag ({@link LagMonitor}); a peer's
 *       timeouts while it lagged do not count against the peer, and ranges
 *       move a page at a time, pausing while it lags
 *       ({@link HandOverPacing}).</li>
 *   <li>A node that leaves gracefully hands its keys to its successor first.
 *       Expired values are purged every round.</li>
 * </ul>
 */
public final class ChordDht implements Dht {

    private static final Logger LOG = LoggerFactory.getLogger(ChordDht.class);
    private static final Duration LEAVE_BOUND = Duration.ofSeconds(2);
    /** How often the owner thread's lag is sampled. */
    private static final Duration LAG_TICK = Duration.ofMillis(200);
    /** A tick later than 1/n of the RPC timeout is lag; less is a busy thread's ordinary jitter. */
    private static final int LAG_TOLERANCE_DIVISOR = 20;
    /** How long a span of lag is remembered: well past any suspicion window. */
    private static final Duration LAG_HORIZON = Duration.ofSeconds(60);
    /** How long after a spell of lag ends the pages of a range moving still pause. */
    private static final Duration PACING_RECENT = Duration.ofSeconds(5);

    private final OverlayRuntime runtime;
    private final int replicas;
    private final ChordOptions options;
    private final OwnerThread owner;
    private final RingState state;
    private final KeyStore store;
    private final RangeCustody custody;
    private final LookupStats stats = new LookupStats();
    /** How far behind the owner thread has been: a peer's timeout while it was is no evidence against the peer. */
    private final SchedulingLag lag;
    private final Optional<WriteBehindValues> disk;
    private final Peer selfPeer;
    private OverlayTransport transport;
    private ChordClient client;
    private RingMaintenance maintenance;
    private KeyMover mover;
    private ChordServer server;
    private KeyRouter router;
    private List<HostPort> bootstrap = List.of();
    /** Joined without its share of the keys, which it has not claimed yet. */
    private volatile boolean shareHeld;
    /** Completed once a claimed share is served: the successor has handed the range over. */
    private volatile CompletableFuture<Void> claimed;
    private boolean roundRunning;
    /** What this node answers for as owner, as of its last round: read by any thread. */
    private volatile KeyRangeSet owned = KeyRangeSet.NONE;
    private volatile List<Peer> known = List.of();

    ChordDht(NodeRef self, OverlayRuntime runtime, int replicas, ChordOptions options) {
        this(self, runtime, replicas, options, Optional.empty());
    }

    /**
     * A node that starts from the entries {@code disk} read back and reports
     * every change of its store to it; it closes {@code disk} when it stops.
     */
    ChordDht(NodeRef self, OverlayRuntime runtime, int replicas, ChordOptions options,
             Optional<WriteBehindValues> disk) {
        this.runtime = runtime;
        this.replicas = replicas;
        this.options = options;
        this.disk = disk;
        this.owner = new OwnerThread(runtime.owner(), runtime.nanos());
        this.state = new RingState(IdSpace.SHA1, self, options.successors());
        this.store = new KeyStore(new VersionClock(self.id().longValue()), state.space(),
                disk.<HeldValueLog>map(d -> d).orElse(HeldValueLog.NONE));
        // Held as replicas until the ring has formed again; custody and stabilisation sort out the rest.
        disk.ifPresent(d -> d.recovered().forEach(store::restore));
        this.custody = new RangeCustody(state, replicas);
        this.selfPeer = peerOf(self);
        this.lag = new SchedulingLag(options.rpcTimeout().toNanos() / LAG_TOLERANCE_DIVISOR, LAG_HORIZON.toNanos());
    }

    /** Wires the transport in once it is bound (the transport's handler is this node). */
    void attach(OverlayTransport transport) {
        this.transport = transport;
        // Ring maintenance must reach a slow peer to tell it from a dead one, so it passes a full window.
        PeerWindows<HostPort> windows = new PeerWindows<>(PeerWindows.INITIAL, PeerWindows.MIN, PeerWindows.MAX,
                options.rpcTimeout().toNanos());
        this.client = new ChordClient(new WindowedTransport(transport, windows, Set.of(ChordWire.NEIGHBOURS,
                ChordWire.NOTIFY, ChordWire.PING, ChordWire.LEAVING), runtime.nanos()), options.rpcTimeout());
        // A peer whose calls time out is dead once that has gone on for as long as it would over
        // consecutive maintenance rounds, however many of this node's calls were waiting on it at once.
        Duration suspicionWindow = options.stabilizeEvery().plus(options.rpcTimeout())
                .multipliedBy(TimeoutSuspicion.TIMEOUTS - 1);
        this.maintenance = new RingMaintenance(state, client, owner.executor(),
                new TimeoutSuspicion<>(suspicionWindow, options.rpcTimeout(), lag), runtime.nanos());
        FencedWrites writes = new FencedWrites(state, custody, store, client, owner, runtime.clock());
        this.router = new KeyRouter(state, maintenance, custody, writes, client, owner, runtime.clock(),
                runtime.nanos(), options.operationTimeout(), replicas, stats);
        this.mover = new KeyMover(state, custody, store, client, maintenance, writes, owner, runtime.clock(),
                options.maxPayloadBytes(), router::forgetRoutes,
                new HandOverPacing(lag, PACING_RECENT, options.rpcTimeout().dividedBy(2)), runtime.nanos());
        this.server = new ChordServer(state, maintenance, custody, store, writes, mover, owner,
                new JoinPlacement(state.space(), options.startTimeout().toNanos()), runtime.nanos());
        maintenance.onChange(s -> mover.ringChanged());
    }

    /** Decodes on the I/O thread, answers on the owner thread. */
    CompletableFuture<byte[]> handle(int type, byte[] payload) {
        return server.handle(type, payload);
    }

    /** Joins through the first bootstrap member that answers; fails once all have been tried. */
    CompletableFuture<Void> join(List<HostPort> bootstrap) {
        this.bootstrap = List.copyOf(bootstrap);
        if (bootstrap.isEmpty()) {
            custody.startsRing();
            return CompletableFuture.completedFuture(null);
        }
        // Copying the range ahead of the first notify keeps the successor serving it meanwhile; the copy
        // may take at most half the start timeout, so a slow one cannot fail the node's start.
        return joinThroughAny(bootstrap).thenCompose(v -> mover.copyAhead(options.startTimeout().dividedBy(2)));
    }

    /**
     * Joins as {@link #join} does, but holds this node's share back: the
     * node routes through the ring as a client (its warm-up runs this way)
     * and neither copies its range nor notifies its successor until {@link
     * #claimShare}. A fourth node that owned a quarter of the keys while its
     * JVM was still compiling its request path and warming up made every
     * member wait on it: measured here (issue 33), its peers' requests to it
     * filled their windows and they shed a tenth of their load.
     */
    CompletableFuture<Void> joinHoldingShare(List<HostPort> bootstrap) {
        if (bootstrap.isEmpty()) {
            return join(bootstrap);
        }
        this.bootstrap = List.copyOf(bootstrap);
        maintenance.holdClaim();
        shareHeld = true;
        return joinThroughAny(bootstrap);
    }

    /**
     * Copies the range ahead (at most half the start timeout, as at a plain
     * join), then lets the next stabilize notify the successor, which hands
     * the range over. Completes once this node serves its range, or after
     * the start timeout.
     */
    @Override
    public CompletableFuture<Void> claimShare() {
        if (!shareHeld) {
            return CompletableFuture.completedFuture(null);
        }
        shareHeld = false;
        LOG.debug("chord node {} claims its share of the keys", selfPeer.id());
        CompletableFuture<Void> serving = new CompletableFuture<>();
        claimed = serving;
        mover.copyAhead(options.startTimeout().dividedBy(2))
                .exceptionally(e -> null)
                .whenComplete((v, e) -> maintenance.claim());
        return serving.completeOnTimeout(null, options.startTimeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Tries each member in turn. A member that answers too slowly (a starved
     * machine, a burst of joins) is not a missing one, so a round that ended
     * in timeouts is tried again; the provider's start timeout bounds the
     * whole join. A refusal, an unreachable port or a closed node ends it.
     */
    private CompletableFuture<Void> joinThroughAny(List<HostPort> bootstrap) {
        CompletableFuture<Void> attempt = CompletableFuture.failedFuture(new IllegalStateException("no bootstrap"));
        for (HostPort member : bootstrap) {
            // The member's id is not known yet; the lookup only needs its address.
            NodeRef ref = new NodeRef(BigInteger.ONE.negate(), member);
            attempt = attempt.exceptionallyCompose(e -> maintenance.join(ref));
        }
        return attempt.exceptionallyCompose(e -> client.inconclusive(e) && !owner.closed()
                ? joinThroughAny(bootstrap)
                : CompletableFuture.failedFuture(e));
    }

    void startMaintenance() {
        // Standing still longer than a round plus a peer's timeout, this node may have been taken for dead.
        owner.watchForStalls(options.stabilizeEvery().plus(options.rpcTimeout()), this::stalled);
        owner.every(options.stabilizeEvery(), this::round);
        new LagMonitor(runtime.owner(), runtime.nanos(), LAG_TICK, lag).start();
    }

    /**
     * The owner thread stood still: it serves and fences nothing until its
     * neighbours confirm it again and it has fetched its range anew.
     */
    private void stalled() {
        LOG.info("chord node {} stood still for longer than its peers wait; it serves nothing until it has"
                + " caught up again", selfPeer.id());
        state.forgetConfirmations();
        custody.stalled();
        publishOwnership();
    }

    /** One maintenance round; never two at once, so a slow peer delays rounds instead of piling them up. */
    private void round() {
        if (roundRunning || owner.closed()) {
            return;
        }
        roundRunning = true;
        store.purgeExpired(runtime.clock().instant());
        mover.perform(custody.roundStarted());
        publishOwnership();
        CompletableFuture<Void> rejoin = CompletableFuture.completedFuture(null);
        if (custody.shouldRejoin(!bootstrap.isEmpty())) {
            // Alone although told of other members: join again, through the successors it had first.
            List<HostPort> seeds = bootstrap;
            rejoin = maintenance.rejoin(custody.formerSuccessors())
                    .exceptionallyCompose(e -> seeds.isEmpty() ? CompletableFuture.failedFuture(e)
                            : joinThroughAny(seeds))
                    .exceptionally(e -> null);
        }
        rejoin.thenCompose(v -> maintenance.stabilize())
                .thenCompose(v -> maintenance.checkPredecessor())
                .thenCompose(v -> maintenance.fixFinger())
                .whenCompleteAsync((v, e) -> {
                    roundRunning = false;
                    if (e != null) {
                        LOG.debug("maintenance round failed: {}", e.toString());
                    }
                    mover.perform(custody.roundEnded());
                    publishOwnership();
                }, owner.executor());
    }

    /** On the owner thread: the custody's answer and the ring's nodes, for readers on any thread. */
    private void publishOwnership() {
        owned = custody.servedPoints();
        CompletableFuture<Void> claim = claimed;
        if (claim != null && !owned.isEmpty()) {
            claim.complete(null);
        }
        known = state.knownNodes().stream().map(ChordDht::peerOf).toList();
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
        return router.get(key);
    }

    @Override
    public CompletableFuture<Boolean> putIfVersion(String key, long expectedVersion, byte[] value, Instant expiresAt) {
        return router.putIfVersion(key, expectedVersion, value, expiresAt);
    }

    @Override
    public CompletableFuture<Boolean> removeIfVersion(String key, long expectedVersion) {
        return router.removeIfVersion(key, expectedVersion);
    }

    /**
     * The keys this node holds, owned and replicated. Read outside the
     * store's owner thread: a racy read of a count, which at worst is a
     * moment old, and all the registration cap needs.
     */
    @Override
    public long storedEntries() {
        return store.size();
    }

    @Override
    public CompletableFuture<Placement> placement(String key) {
        return router.placement(key);
    }

    /** The range this node served at the start or end of its last maintenance round. */
    @Override
    public Optional<KeyRangeSet> ownedRanges() {
        return Optional.of(owned);
    }

    /** The predecessor, successors and fingers as of the start or end of the last maintenance round. */
    @Override
    public List<Peer> knownPeers() {
        return known;
    }

    /** Successors, predecessors and fingers forgotten because their calls kept timing out. */
    @Override
    public long peersWrittenOff() {
        return maintenance == null ? 0 : maintenance.peersWrittenOff();
    }

    // ---- introspection -------------------------------------------------------------------------

    /** Hops per lookup so far (the metric the issue asks for). */
    public LookupStats.Snapshot lookupStats() {
        return stats.snapshot();
    }

    /** A copy of this node's ring state, taken on its owner thread, for invariant checks. */
    public RingState ringSnapshot() {
        return owner.supply(() -> {
            RingState copy = new RingState(state.space(), state.self(), state.successorListLength());
            List<NodeRef> succ = state.successors();
            copy.adoptSuccessor(succ.get(0), succ.subList(1, succ.size()));
            state.predecessor().ifPresent(p -> copy.rectify(p, false));
            return copy;
        }).join();
    }

    /** Number of values held here, as owner or replica. */
    public int storedValues() {
        return owner.supply(store::size).join();
    }

    /** Whether this node holds a live copy of {@code key}, as owner or replica (for tests that count copies). */
    boolean holdsLive(String key) {
        return owner.supply(() -> store.live(key, runtime.clock().instant()).isPresent()).join();
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
        if (!owner.markClosed()) {
            return;
        }
        try {
            CompletableFuture<Void> farewell = CompletableFuture.supplyAsync(() -> {
                NodeRef succ = state.successor();
                if (succ.equals(state.self())) {
                    return CompletableFuture.<Void>completedFuture(null);
                }
                List<StoredEntry> all = store.liveWhere(runtime.clock().instant(), id -> true);
                CompletableFuture<Void> handOff = mover.push(succ, all)
                        .thenCompose(v -> client.leaving(succ, state.self(), state.predecessor()));
                CompletableFuture<Void> toPred = state.predecessor().filter(p -> !p.equals(succ))
                        .map(p -> client.leaving(p, state.self(), state.predecessor()))
                        .orElse(CompletableFuture.completedFuture(null));
                return CompletableFuture.allOf(handOff.exceptionally(e -> null), toPred.exceptionally(e -> null));
            }, owner.executor()).thenCompose(f -> f);
            farewell.get(LEAVE_BOUND.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            LOG.debug("graceful leave of {} incomplete: {}", selfPeer.id(), e.toString());
        }
        crash();
    }

    /**
     * Holds this node's owner thread for {@code pause}, as a long GC pause or
     * a starved process would: its peers see it stop answering while it still
     * believes its own view of the ring (for tests of false failure
     * suspicion).
     */
    void stall(Duration pause) {
        owner.execute(() -> {
            long end = runtime.nanos().getAsLong() + pause.toNanos();
            for (long left = pause.toNanos(); left > 0; left = end - runtime.nanos().getAsLong()) {
                LockSupport.parkNanos(left);
            }
        });
    }

    /** Stops at once with no goodbye, as a killed process would (for tests of failure handling). */
    void crash() {
        owner.stop();
        if (transport != null) {
            transport.close();
        }
        disk.ifPresent(WriteBehindValues::close);
    }
}
