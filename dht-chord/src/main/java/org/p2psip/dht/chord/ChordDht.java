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
import org.p2psip.core.overlay.OverlayException;
import org.p2psip.core.overlay.OverlayRuntime;
import org.p2psip.core.overlay.OverlayTransport;
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
 *   <li>A predecessor pointer can lag behind joins: a node not yet
 *       notified by the nodes that joined in front of it still points past
 *       them. So a node serves its range only while its predecessor confirms
 *       (check-predecessor asks it for its neighbours) that this node is its
 *       successor.</li>
 *   <li>A failure detector can be wrong: a node that stalls for a few
 *       seconds is taken for dead and its successor serves its range, then
 *       it comes back still believing it owns that range. So the first
 *       replica is a fence: it takes an owner's write only while the writer
 *       is its predecessor and it holds nothing newer, and the owner stores
 *       and acknowledges a write only after that. Every acknowledged write
 *       of a key therefore passes through one node's store in order, and a
 *       returning owner's stale copies are refused there, then replaced by
 *       the ones its successor hands back. When adjacent nodes come back
 *       together, the nearest passes on what belongs to those before it.</li>
 *   <li>Reads go to the owner and fall back to the replicas in order.</li>
 *   <li>An owner serves only the range it has caught up on. Whenever its
 *       range grows — it has just joined, its predecessor died or left —
 *       it first fetches the gained range from its first successors (the
 *       previous owner or the replicas of the keys in it) and refuses reads
 *       and writes there until every one of them has answered; a caller
 *       that is refused looks up again. A node that has just joined also
 *       needs one of them to hold the whole range (to have served it), not
 *       just some copies: two nodes joining one gap at once would otherwise
 *       fetch from each other while neither has the keys. Without this a new
 *       owner would answer "absent" for a key still on its way, and a
 *       registrar's write at version absent would replace the key's
 *       bindings. A node that does not know its predecessor serves nothing
 *       (unless it is alone): it cannot tell which keys are its own.</li>
 *   <li>When the predecessor dies this node already holds replicas of its
 *       keys and re-replicates them; a node that leaves gracefully hands its
 *       keys to its successor first. Expired values are purged every
 *       round.</li>
 *   <li>Every lookup's hop count goes into {@link #lookupStats()}.</li>
 * </ul>
 */
public final class ChordDht implements Dht {

    private static final Logger LOG = LoggerFactory.getLogger(ChordDht.class);
    /** Every this many rounds the owner re-pushes its keys to its replicas, in case a push was lost. */
    private static final int ANTI_ENTROPY_ROUNDS = 20;
    private static final Duration RETRY_PAUSE = Duration.ofMillis(50);
    private static final Duration LEAVE_BOUND = Duration.ofSeconds(2);
    /** How many nodes a joiner asks, walking clockwise, for one that holds all of its range. */
    private static final int FETCH_WALK = 64;
    /**
     * Rounds a joiner keeps looking for a node that holds all of its range
     * before it serves with the copies its successors gave it (a ring too
     * large for one walk round it, or a holder that keeps timing out).
     */
    private static final int FETCH_PATIENCE = 20;
    /**
     * How many nodes back a hand-back is passed on: one per node that came
     * back into the same gap at once (adjacent nodes stalled together).
     */
    private static final int HAND_BACK_HOPS = 8;

    private final IdSpace space = IdSpace.SHA1;
    private final Clock clock;
    private final OverlayRuntime runtime;
    private final int replicas;
    private final ChordOptions options;
    private final ScheduledExecutorService owner;
    private final RingState state;
    private final KeyStore store;
    private final LookupStats stats = new LookupStats();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Peer selfPeer;
    private OverlayTransport transport;
    private ChordClient client;
    private RingMaintenance maintenance;
    private Optional<NodeRef> lastPredecessor = Optional.empty();
    private boolean lastConfirmed;
    private List<NodeRef> lastReplicaTargets = List.of();
    /** The range last logged as served, for DEBUG lines on each change. */
    private String lastServing = "";
    /**
     * The lower (exclusive) end of the range this node has caught up on and
     * serves, up to itself; empty until the first fetch completes.
     */
    private Optional<BigInteger> servedFrom = Optional.empty();
    /** The lower end of the widest range this node has served: it holds every key of that range. */
    private Optional<BigInteger> heldFrom = Optional.empty();
    /** Whether this node has been alone (or started the ring), and so holds every key there was. */
    private volatile boolean heldAll;
    private boolean fetching;
    /** Whether this node was its own successor when last looked at (it starts so). */
    private boolean alone = true;
    /**
     * Alone because every successor stopped answering, not because the ring
     * is this node alone: it serves nothing while it tries to rejoin through
     * the members it knew, for {@link #FETCH_PATIENCE} rounds.
     */
    private boolean cutOff;
    private int cutOffRounds;
    /** The successors this node last had, to rejoin through if it is cut off. */
    private List<NodeRef> lastPeers = List.of();
    private int wholeRangeMisses;
    private long rounds;
    private boolean roundRunning;
    /** Keys with a write on its way to the first replica; a later write to one waits for it. Owner thread only. */
    private final java.util.Map<String, CompletableFuture<Void>> writing = new java.util.HashMap<>();
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

    ChordDht(NodeRef self, OverlayRuntime runtime, int replicas, ChordOptions options) {
        this.runtime = runtime;
        this.clock = runtime.clock();
        this.replicas = replicas;
        this.options = options;
        this.owner = runtime.owner();
        this.state = new RingState(space, self, options.successors());
        this.store = new KeyStore(new VersionClock(self.id().longValue()));
        this.selfPeer = peerOf(self);
    }

    /** Wires the transport in once it is bound (the transport's handler is this node). */
    void attach(OverlayTransport transport) {
        this.transport = transport;
        this.client = new ChordClient(transport, options.rpcTimeout());
        this.maintenance = new RingMaintenance(state, client, owner);
        maintenance.onChange(s -> ringChanged());
    }

    /** Joins through the first bootstrap member that answers; fails once all have been tried. */
    CompletableFuture<Void> join(List<org.p2psip.core.net.HostPort> bootstrap) {
        this.bootstrap = List.copyOf(bootstrap);
        if (bootstrap.isEmpty()) {
            // A new ring: this node holds every key there is, and every later fetch traces back to it.
            heldAll = true;
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
        return attempt.exceptionallyCompose(e -> client.inconclusive(e) && !closed.get()
                ? joinThroughAny(bootstrap)
                : CompletableFuture.failedFuture(e));
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
        if (cutOff && ++cutOffRounds >= FETCH_PATIENCE) {
            LOG.warn("chord node {}: no member of the ring answered for {} rounds; it serves every key alone",
                    selfPeer.id(), cutOffRounds);
            cutOff = false;
            heldAll = true;
        }
        if (onItsOwn() && (!bootstrap.isEmpty() || !lastPeers.isEmpty())) {
            // Alone although told of other members: every successor died at once (more than r - 1
            // adjacent failures, which Zave's model excludes), a partition cut this node off, or — most
            // often — a starved machine made them all look dead. Join again, through the successors it
            // had first, rather than stay a ring of one beside the real ring.
            List<org.p2psip.core.net.HostPort> seeds = bootstrap;
            rejoin = maintenance.rejoin(lastPeers)
                    .exceptionallyCompose(e -> seeds.isEmpty() ? CompletableFuture.failedFuture(e) : joinThroughAny(seeds))
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
                    catchUp();
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
        boolean confirmed = confirmedBothWays();
        boolean newlyConfirmed = confirmed && !lastConfirmed;
        lastConfirmed = confirmed;
        if (pred.isPresent() && !confirmed && !pred.equals(oldPred)) {
            // Serving waits for the new predecessor to confirm; ask now rather than next round.
            maintenance.checkPredecessor();
        }
        catchUp();
        List<NodeRef> targets = replicaTargets();
        if (pred.isPresent() && (!pred.equals(oldPred) || newlyConfirmed || !targets.equals(lastReplicaTargets))) {
            // Ownership grew (dead predecessor) or the replica set changed: bring every replica up to date.
            pushOwnedToReplicas(targets);
        }
        lastReplicaTargets = targets;
        widenHeld();
        logServing();
    }

    /** At DEBUG, one line whenever the range this node serves changes: where two owners overlap shows in the logs. */
    private void logServing() {
        if (!LOG.isDebugEnabled()) {
            return;
        }
        String now;
        if (onItsOwn()) {
            now = cutOff ? "nothing (cut off)" : "every key (alone)";
        } else {
            now = servingOwnRange()
                    ? "(" + abbreviated(servedFrom.get()) + ", " + abbreviated(state.self().id()) + "]"
                    : "nothing";
        }
        if (!now.equals(lastServing)) {
            LOG.debug("serving {} (predecessor {}, successor {})", now, state.predecessor().map(Object::toString)
                    .orElse("none"), state.successor());
            lastServing = now;
        }
    }

    /**
     * Whether this node answers for {@code id} as its owner now: it owns it
     * by its ring state and has caught up on its range (or is alone).
     */
    private boolean serves(BigInteger id) {
        if (onItsOwn()) {
            return !cutOff;
        }
        return servingOwnRange() && state.owns(id);
    }

    /** No successor but itself and no predecessor: alone, or cut off from the ring. */
    private boolean onItsOwn() {
        return state.successor().equals(state.self()) && state.predecessor().isEmpty();
    }

    /**
     * Whether this node serves {@code (predecessor, self]}: it has caught up
     * on exactly that range and both neighbours confirm it.
     */
    private boolean servingOwnRange() {
        Optional<NodeRef> pred = state.predecessor();
        return pred.isPresent() && confirmedBothWays() && servedFrom.equals(Optional.of(pred.get().id()));
    }

    /**
     * Whether both neighbours agree this node sits between them: its
     * predecessor names it as successor, and its successor names it as
     * predecessor (so the successor no longer serves this node's range).
     */
    private boolean confirmedBothWays() {
        return state.predecessorConfirmed() && state.successorConfirmed();
    }

    /**
     * On the owner thread: brings {@link #servedFrom} to the predecessor. A
     * range that shrank (a node joined in front) needs nothing; a range that
     * grew is fetched from the first successors before it is served. A
     * fetch that fails is tried again next round.
     */
    private void catchUp() {
        if (state.successor().equals(state.self())) {
            if (!alone) {
                LOG.warn("chord node {} has lost every successor; it serves nothing while it looks for the ring",
                        selfPeer.id());
                cutOff = true;
                cutOffRounds = 0;
            }
            alone = true;
            if (!cutOff) {
                heldAll = true;
            }
            return;
        }
        alone = false;
        cutOff = false;
        lastPeers = firstSuccessors(state.successorListLength());
        Optional<NodeRef> pred = state.predecessor();
        if (fetching || pred.isEmpty()) {
            return;
        }
        BigInteger from = pred.get().id();
        BigInteger self = state.self().id();
        if (servedFrom.isPresent()
                && (servedFrom.get().equals(from) || space.betweenOpen(servedFrom.get(), from, self))) {
            if (!servedFrom.get().equals(from)) {
                handBack(pred.get(), servedFrom.get(), from);
            }
            serveFrom(from);
            return;
        }
        // A joiner has nothing yet and must find the whole range somewhere; a range that grew
        // (a failed or departed predecessor) is already here as replicas or the leaver's hand-off.
        boolean needsWholeRange = servedFrom.isEmpty() && !heldAll;
        BigInteger to = servedFrom.orElse(self);
        List<NodeRef> sources = fetchSources();
        List<CompletableFuture<ChordClient.FetchAnswer>> answers = sources.stream()
                .map(s -> client.fetchRange(s, state.self(), from, to)).toList();
        fetching = true;
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
                .thenCompose(v -> {
                    List<ChordClient.FetchAnswer> got = answers.stream().map(CompletableFuture::join).toList();
                    if (!needsWholeRange || got.stream().anyMatch(ChordClient.FetchAnswer::whole)) {
                        return CompletableFuture.completedFuture(Walk.FOUND);
                    }
                    return walkForWhole(from, to, got.get(got.size() - 1).successor(), FETCH_WALK);
                })
                .whenCompleteAsync((walk, e) -> {
                    fetching = false;
                    if (e != null) {
                        LOG.debug("fetching ({}, {}] from {} failed: {}", from, to, sources, e.toString());
                        return;
                    }
                    if (walk == Walk.GAVE_UP && ++wholeRangeMisses < FETCH_PATIENCE) {
                        return;
                    }
                    if (walk != Walk.FOUND) {
                        // Nobody has served the whole range: its last owner is gone, and what is left of
                        // it is the replicas' copies, which the successors have just pushed here.
                        LOG.info("no live node holds all of ({}, {}]; serving it from the successors' copies",
                                from.toString(16), to.toString(16));
                    }
                    wholeRangeMisses = 0;
                    if (state.predecessor().map(NodeRef::id).equals(Optional.of(from))) {
                        serveFrom(from);
                        pushOwnedToReplicas(replicaTargets());
                    } else {
                        catchUp();
                    }
                }, owner);
    }

    /**
     * Asks node after node clockwise, from {@code at}, for the range until
     * one holds all of it. The last node to have served a key lies clockwise
     * of the key, so the walk reaches it unless it is gone (and then its
     * successor has taken its range over, replicas and all).
     */
    private CompletableFuture<Walk> walkForWhole(BigInteger from, BigInteger to, NodeRef at, int left) {
        if (at.equals(state.self())) {
            return CompletableFuture.completedFuture(Walk.NOWHERE);
        }
        if (left <= 0) {
            return CompletableFuture.completedFuture(Walk.GAVE_UP);
        }
        return client.fetchRange(at, state.self(), from, to).thenCompose(a -> a.whole()
                ? CompletableFuture.completedFuture(Walk.FOUND)
                : walkForWhole(from, to, a.successor(), left - 1));
    }

    /** How a search for a node holding a whole range ended. */
    private enum Walk {
        /** A node that has served the range pushed it. */
        FOUND,
        /** All the way round the ring and nobody has: the range's last owner is gone. */
        NOWHERE,
        /** The walk's step limit came first. */
        GAVE_UP
    }

    /**
     * The range shrank: {@code pred} joined in front of this node, or came
     * back after a stall this node took for its death. Its keys go to it —
     * in the second case the copies written here meanwhile, which it lacks.
     * Several nodes may have come back at once (adjacent nodes stalled
     * together); {@code pred} passes on what belongs to those before it
     * ({@link #handedBack}).
     */
    private void handBack(NodeRef pred, BigInteger oldFrom, BigInteger from) {
        Instant now = clock.instant();
        List<StoredEntry> theirs = store.entries(e -> e.liveAt(now)
                && space.betweenRightClosed(oldFrom, space.idOf(e.key()), from));
        LOG.debug("handing {} values of ({}, {}] back to {}", theirs.size(), abbreviated(oldFrom), abbreviated(from),
                pred);
        sendHandBack(pred, theirs, HAND_BACK_HOPS);
    }

    private void sendHandBack(NodeRef to, List<StoredEntry> entries, int hopsLeft) {
        inFrames(entries, batch -> client.handBack(to, batch, hopsLeft)).exceptionally(e -> {
            LOG.debug("handing {} values back to {} failed: {}", entries.size(), to, e.toString());
            return null;
        });
    }

    /**
     * On the owner thread: copies handed back by the successor. Those of
     * this node's range are its own; those before its predecessor belong to
     * a node further back that came back at the same time as this one, and
     * go on to the predecessor. Without that, a write the successor
     * acknowledged there while it served both ranges would stay on the
     * replicas, and the real owner would answer "absent" for it.
     */
    private byte[] handedBack(List<StoredEntry> entries, int hopsLeft) {
        entries.forEach(store::mergeIfNewer);
        Optional<NodeRef> pred = state.predecessor();
        if (pred.isPresent() && hopsLeft > 0) {
            BigInteger from = pred.get().id();
            List<StoredEntry> before = entries.stream()
                    .filter(e -> !space.betweenRightClosed(from, space.idOf(e.key()), state.self().id())).toList();
            if (!before.isEmpty()) {
                LOG.debug("passing {} handed-back values on to {}", before.size(), pred.get());
                sendHandBack(pred.get(), before, hopsLeft - 1);
            }
        }
        return new byte[0];
    }

    /** Caught up on {@code (from, self]}: served once the predecessor has confirmed too. */
    private void serveFrom(BigInteger from) {
        if (LOG.isDebugEnabled() && !servedFrom.equals(Optional.of(from))) {
            LOG.debug("caught up on ({}, {}] (was from {}), holding {} values", abbreviated(from),
                    abbreviated(state.self().id()), servedFrom.map(ChordDht::abbreviated).orElse("nothing"),
                    store.size());
        }
        servedFrom = Optional.of(from);
        widenHeld();
        logServing();
    }

    /** While serving, the range served counts towards what this node holds whole. */
    private void widenHeld() {
        if (!servingOwnRange()) {
            return;
        }
        BigInteger from = servedFrom.get();
        BigInteger self = state.self().id();
        if (heldFrom.isEmpty() || space.distance(from, self).compareTo(space.distance(heldFrom.get(), self)) > 0) {
            heldFrom = Optional.of(from);
        }
    }

    /** The first six hex digits of a ring id, enough to place it in a log line. */
    private static String abbreviated(BigInteger id) {
        return String.format("%040x", id).substring(0, 6);
    }

    /** Answers a fetch: pushes what this node holds of {@code (from, to]} to the requester. */
    private CompletableFuture<byte[]> fetchFor(NodeRef requester, BigInteger from, BigInteger to) {
        boolean whole = holdsWhole(from, to);
        if (whole) {
            yieldTo(requester);
        }
        // A write this node accepted as owner before the requester took the range over may still be on its
        // way to the first replica; the requester must get it, so the answer waits for it.
        CompletableFuture<?>[] pending = writing.entrySet().stream()
                .filter(w -> space.betweenRightClosed(from, space.idOf(w.getKey()), to))
                .map(java.util.Map.Entry::getValue).toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(pending).thenComposeAsync(v -> {
            Instant now = clock.instant();
            NodeRef next = state.successor();
            return push(requester, store.entries(e -> e.liveAt(now)
                    && space.betweenRightClosed(from, space.idOf(e.key()), to)))
                    .thenApply(x -> new ChordWire.Out().flag(whole).node(next).bytes());
        }, owner);
    }

    /**
     * A node inside this node's range has come for that range whole, to
     * serve it: it has joined in front, though the nodes between have not
     * notified this one yet (several joined the same gap at once). Taken as
     * its notify, so this node stops serving the range before handing it
     * over; otherwise both would serve it until the notifications caught up.
     */
    private void yieldTo(NodeRef requester) {
        BigInteger self = state.self().id();
        boolean inRange = state.predecessor().map(p -> space.betweenOpen(p.id(), requester.id(), self))
                .orElse(!requester.equals(state.self()));
        if (!inRange || !state.rectify(requester, true)) {
            return;
        }
        LOG.debug("yielding ({}, {}] to {}, which fetched it whole", servedFrom.map(ChordDht::abbreviated)
                .orElse("?"), abbreviated(requester.id()), requester);
        // What this node holds whole stays so: it is the newcomer's successor, so (with two copies or more)
        // every write the newcomer acknowledges passes through here as its fence.
        ringChanged();
    }

    /** Whether this node holds every key with an id in {@code (from, to]}: it has served that range. */
    private boolean holdsWhole(BigInteger from, BigInteger to) {
        if (heldAll) {
            return true;
        }
        if (heldFrom.isEmpty()) {
            return false;
        }
        BigInteger start = heldFrom.get();
        BigInteger span = space.distance(start, state.self().id());
        return space.distance(start, to).compareTo(span) <= 0
                && space.distance(start, from).compareTo(space.distance(start, to)) <= 0;
    }

    /**
     * Where a gained range's keys are: its previous owner and the replicas,
     * all among this node's first successors. At least two are asked, so two
     * nodes joining in one gap at once still find the keys.
     */
    private List<NodeRef> fetchSources() {
        return firstSuccessors(Math.max(replicas - 1, 2));
    }

    private List<NodeRef> replicaTargets() {
        return firstSuccessors(replicas - 1);
    }

    /** Up to {@code n} distinct successors other than this node, nearest first. */
    private List<NodeRef> firstSuccessors(int n) {
        List<NodeRef> out = new ArrayList<>();
        for (NodeRef s : state.successors()) {
            if (out.size() >= n) {
                break;
            }
            if (!s.equals(state.self()) && !out.contains(s)) {
                out.add(s);
            }
        }
        return out;
    }

    private void pushOwnedToReplicas(List<NodeRef> targets) {
        if (state.predecessor().isEmpty() || targets.isEmpty()) {
            return;
        }
        Instant now = clock.instant();
        List<StoredEntry> owned = store.entries(e -> e.liveAt(now) && serves(space.idOf(e.key())));
        for (NodeRef t : targets) {
            push(t, owned);
        }
    }

    /** Pushes copies (the receiver keeps the newer of its own and each) to another node. */
    private CompletableFuture<Void> push(NodeRef to, List<StoredEntry> entries) {
        return inFrames(entries, batch -> client.replicate(to, batch, List.of()));
    }

    /** Sends entries in frames well under the size bound, one {@code send} per frame. */
    private CompletableFuture<Void> inFrames(List<StoredEntry> entries,
                                             Function<List<StoredEntry>, CompletableFuture<Void>> send) {
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        List<StoredEntry> batch = new ArrayList<>();
        long bytes = 0;
        long limit = options.maxPayloadBytes() / 2;
        for (StoredEntry e : entries) {
            long size = e.value().length + e.key().length() * 3L + 32;
            if (!batch.isEmpty() && bytes + size > limit) {
                sent.add(send.apply(batch));
                batch = new ArrayList<>();
                bytes = 0;
            }
            batch.add(e);
            bytes += size;
        }
        if (!batch.isEmpty()) {
            sent.add(send.apply(batch));
        }
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
            // Answered by the owner thread: a node whose owner thread is stuck (a long GC pause, a starved
            // machine) can serve nothing, so it should not look alive either.
            case ChordWire.PING -> onOwner(() -> new byte[0]);
            case ChordWire.GET -> {
                String key = in.text();
                boolean asOwner = in.flag();
                yield onOwnerCompose(() -> asOwner && !serves(space.idOf(key))
                        ? CompletableFuture.completedFuture(new ChordWire.Out().code(ChordWire.NOT_OWNER).bytes())
                        : afterPendingWrite(key, () -> encodeRead(readHere(key, asOwner))));
            }
            case ChordWire.FETCH_RANGE -> {
                NodeRef requester = in.node();
                BigInteger from = in.id();
                BigInteger to = in.id();
                yield onOwnerCompose(() -> fetchFor(requester, from, to));
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
                List<StoredEntry> entries = in.entries();
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
            case ChordWire.HAND_BACK -> {
                int hopsLeft = (int) Math.min(in.num(), HAND_BACK_HOPS);
                List<StoredEntry> entries = in.entries();
                yield onOwner(() -> handedBack(entries, hopsLeft));
            }
            case ChordWire.OWNER_WRITE -> {
                NodeRef writer = in.node();
                long base = in.num();
                boolean removal = in.flag();
                StoredEntry written = removal ? new StoredEntry(in.text(), new byte[0], in.num(), Instant.EPOCH)
                        : in.entry();
                yield onOwner(() -> fenceOwnerWrite(writer, base, written, removal));
            }
            case ChordWire.LEAVING -> {
                NodeRef leaver = in.node();
                Optional<NodeRef> heir = in.optionalNode();
                yield onOwner(() -> {
                    state.predecessorHandedOver(leaver, heir.orElse(null));
                    state.forget(leaver);
                    if (state.successor().equals(state.self())) {
                        // The last other member left gracefully, handing its keys over: alone, not cut off.
                        alone = true;
                        lastPeers = List.of();
                    }
                    ringChanged();
                    return new byte[0];
                });
            }
            default -> CompletableFuture.failedFuture(new IllegalArgumentException("unknown chord message " + type));
        };
    }

    /** The live copy held here; at TRACE, an owner's miss is logged (where a lost write shows). */
    private Optional<StoredEntry> readHere(String key, boolean asOwner) {
        Optional<StoredEntry> found = store.live(key, clock.instant());
        if (asOwner && found.isEmpty()) {
            LOG.trace("owner has no {}", key);
        }
        return found;
    }

    private static byte[] encodeRead(Optional<StoredEntry> e) {
        ChordWire.Out out = new ChordWire.Out().code(e.isPresent() ? ChordWire.FOUND : ChordWire.NOT_FOUND);
        e.ifPresent(out::entry);
        return out.bytes();
    }

    private byte[] encodeWrite(ChordClient.WriteAnswer a) {
        return new ChordWire.Out().code(a.status()).num(a.version()).bytes();
    }

    /** At the owner: check ownership and version, then commit through the first replica. */
    private CompletableFuture<ChordClient.WriteAnswer> applyPut(String key, long expected, byte[] value,
                                                               Instant expiresAt) {
        return afterWritesTo(key, () -> {
            if (!serves(space.idOf(key))) {
                return notOwner();
            }
            Optional<StoredEntry> proposed = store.proposePut(key, expected, value, expiresAt, clock.instant());
            if (proposed.isEmpty()) {
                return conflict();
            }
            return commit(proposed.get(), expected, false);
        });
    }

    private CompletableFuture<ChordClient.WriteAnswer> applyRemove(String key, long expected) {
        return afterWritesTo(key, () -> {
            if (!serves(space.idOf(key))) {
                return notOwner();
            }
            if (!store.canRemove(key, expected, clock.instant())) {
                return conflict();
            }
            return commit(new StoredEntry(key, new byte[0], expected, Instant.EPOCH), expected, true);
        });
    }

    private static CompletableFuture<ChordClient.WriteAnswer> notOwner() {
        return CompletableFuture.completedFuture(new ChordClient.WriteAnswer(ChordWire.NOT_OWNER, 0));
    }

    private static CompletableFuture<ChordClient.WriteAnswer> conflict() {
        return CompletableFuture.completedFuture(new ChordClient.WriteAnswer(ChordWire.CONFLICT, 0));
    }

    /**
     * On the owner thread: runs {@code write} once every earlier write to the
     * same key here has been committed or refused, so a write never rests on
     * a value that its first replica may still turn down.
     */
    private <T> CompletableFuture<T> afterWritesTo(String key, Supplier<CompletableFuture<T>> write) {
        CompletableFuture<Void> before = writing.get(key);
        CompletableFuture<T> result = before == null ? write.get() : before.thenComposeAsync(v -> write.get(), owner);
        if (!result.isDone()) {
            CompletableFuture<Void> done = result.handle((v, e) -> null);
            writing.put(key, done);
            done.whenCompleteAsync((v, e) -> writing.remove(key, done), owner);
        }
        return result;
    }

    /**
     * On the owner thread: reads once a write to the key on its way here has
     * been committed or refused, so a reader (about to write back) sees the
     * outcome instead of the value that write is replacing.
     */
    private <T> CompletableFuture<T> afterPendingWrite(String key, Supplier<T> read) {
        CompletableFuture<Void> pending = writing.get(key);
        return pending == null ? CompletableFuture.completedFuture(read.get())
                : pending.thenApplyAsync(v -> read.get(), owner);
    }

    /**
     * Commits a write decided at this owner: first its successor — the node
     * that takes the key over if this one is taken for dead — must accept
     * it, which it does only while this node is its predecessor and it holds
     * no newer copy; only then is it stored here and pushed to the other
     * replicas, and acknowledged. So at any moment only one node can
     * acknowledge writes to a key, even when a stalled owner comes back
     * after its successor took its range over: the successor refuses it, and
     * hands back the copies it wrote meanwhile (see {@link #catchUp}).
     * Alone, or with one copy only, there is nobody to ask.
     */
    private CompletableFuture<ChordClient.WriteAnswer> commit(StoredEntry written, long base, boolean removal) {
        List<NodeRef> targets = replicaTargets();
        if (targets.isEmpty()) {
            return storeAndPush(written, removal, targets);
        }
        NodeRef fence = targets.get(0);
        return client.ownerWrite(fence, state.self(), base, written, removal).handleAsync((answer, error) -> {
            if (error != null || answer.status() == ChordWire.NOT_OWNER) {
                return notOwner();
            }
            if (answer.status() == ChordWire.CONFLICT) {
                answer.newer().ifPresent(store::mergeIfNewer);
                return conflict();
            }
            return storeAndPush(written, removal, replicaTargets().stream().filter(t -> !t.equals(fence)).toList());
        }, owner).thenCompose(f -> f);
    }

    /**
     * Stores a committed write here and pushes it to {@code others}; answers
     * once each has acknowledged or been found dead (a dead replica is
     * replaced by stabilize, and the new one is brought up to date by
     * {@link #ringChanged}).
     */
    private CompletableFuture<ChordClient.WriteAnswer> storeAndPush(StoredEntry written, boolean removal,
                                                                  List<NodeRef> others) {
        keep(written, removal);
        List<CompletableFuture<Void>> acks = new ArrayList<>();
        for (NodeRef t : others) {
            acks.add(replicateOne(t, written, removal));
        }
        Optional<NodeRef> pred = state.predecessor();
        if (pred.isPresent() && !serves(space.idOf(written.key())) && !others.contains(pred.get())) {
            // A node joined in front while this write was on its way and now owns the key — or one further
            // back does, several having joined at once; it may already have fetched the range, so the write
            // goes to it as a hand-back, which is passed back until it reaches the owner.
            acks.add(removal ? replicateOne(pred.get(), written, true)
                    : client.handBack(pred.get(), List.of(written), HAND_BACK_HOPS).exceptionally(e -> null));
        }
        if (LOG.isTraceEnabled()) {
            LOG.trace("owner {} {} v{}", removal ? "removes" : "writes", written.key(), written.version());
        }
        return CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new))
                .thenApply(v -> new ChordClient.WriteAnswer(ChordWire.APPLIED, written.version()));
    }

    /** Pushes one committed write or removal to {@code t}; completes normally even if {@code t} is gone. */
    private CompletableFuture<Void> replicateOne(NodeRef t, StoredEntry written, boolean removal) {
        CompletableFuture<Void> sent = removal ? client.replicate(t, List.of(), List.of(written))
                : client.replicate(t, List.of(written), List.of());
        return sent.exceptionally(e -> null);
    }

    /** Takes a committed write (or removal, by the version removed) into this node's store. */
    private void keep(StoredEntry written, boolean removal) {
        if (removal) {
            store.removeIfNotNewer(written.key(), written.version());
        } else {
            store.mergeIfNewer(written);
        }
    }

    /**
     * At the first replica: takes an owner's write only while the writer is
     * this node's predecessor (so this node does not serve the key itself)
     * and nothing newer than the version it replaces is held here.
     */
    private byte[] fenceOwnerWrite(NodeRef writer, long base, StoredEntry written, boolean removal) {
        if (!state.predecessor().equals(Optional.of(writer)) || writing.containsKey(written.key())) {
            // Not its predecessor, or this node's own write to the key (from before the writer joined in
            // front) is still on its way: the writer asks again.
            return new ChordWire.Out().code(ChordWire.NOT_OWNER).bytes();
        }
        Optional<StoredEntry> newer = store.newerThan(written.key(), base, clock.instant());
        if (newer.isPresent()) {
            return new ChordWire.Out().code(ChordWire.CONFLICT).entry(newer.get()).bytes();
        }
        keep(written, removal);
        if (LOG.isTraceEnabled()) {
            LOG.trace("fence takes {} v{} from {}", written.key(), written.version(), writer);
        }
        return new ChordWire.Out().code(ChordWire.APPLIED).bytes();
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
        CompletableFuture<Optional<StoredEntry>> read = at.equals(state.self())
                ? onOwnerCompose(() -> {
                    if (asOwner && !serves(space.idOf(key))) {
                        throw new NotOwner();
                    }
                    return afterPendingWrite(key, () -> readHere(key, asOwner));
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
        long deadline = runtime.nanos().getAsLong() + options.operationTimeout().toNanos();
        return attempt(what, action, space.idOf(key), deadline, null);
    }

    private <T> CompletableFuture<T> attempt(String what, Function<LookupResult, CompletableFuture<T>> action,
                                             BigInteger id, long deadline, Throwable last) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(new IllegalStateException("chord node " + selfPeer.id()
                    + " is closed"));
        }
        if (runtime.nanos().getAsLong() > deadline) {
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
                    boolean scheduled = later(RETRY_PAUSE, () -> attempt(what, action, id, deadline, cause)
                            .whenComplete((v, x) -> {
                                if (x != null) {
                                    retry.completeExceptionally(x);
                                } else {
                                    retry.complete(v);
                                }
                            }));
                    if (!scheduled) {
                        retry.completeExceptionally(new IllegalStateException("chord node " + selfPeer.id()
                                + " is closed"));
                    }
                    return retry;
                });
    }

    /** Runs {@code task} on the owner thread after {@code pause}; false if the node has closed. */
    private boolean later(Duration pause, Runnable task) {
        try {
            owner.schedule(task, pause.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return false;
        }
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
                CompletableFuture<Void> handOff = push(succ, all)
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
                java.util.concurrent.locks.LockSupport.parkNanos(left);
            }
        });
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
