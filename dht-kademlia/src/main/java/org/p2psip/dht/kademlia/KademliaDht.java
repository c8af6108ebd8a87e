package org.p2psip.dht.kademlia;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

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
import org.p2psip.core.overlay.WindowedTransport;
import org.p2psip.core.store.HeldValueLog;
import org.p2psip.core.store.WriteBehindValues;

/**
 * One Kademlia node (Maymounkov &amp; Mazières) on core's UDP overlay
 * transport, serving the {@link Dht} SPI: wires its parts together.
 *
 * <ul>
 *   <li>Routing follows the paper: k-buckets updated by every message
 *       ({@link RoutingTable}, §2.2, kept by {@link KademliaClient} and
 *       {@link ContactHealth}), iterative lookups with α parallel queries
 *       ({@link NodeLookup} run by {@link IterativeLookups}, §2.3), bucket
 *       refresh, keys handed to their new holders when the membership
 *       changes ({@link HolderShift}) and a slow republish as a safety net
 *       ({@link KademliaMaintenance}, §2.3, §2.5).</li>
 *   <li>A key lives on its {@code min(replicas, k)} closest nodes.
 *       Conditional writes go to the key's coordinator, the closest live
 *       node, which stores them at the replicas by prepare and commit
 *       ({@link WriteCoordinator}); each replica's side of that rule is its
 *       {@link ReplicaStore}.</li>
 *   <li>Peers' requests are served by {@link KademliaServer}. Requests to
 *       each peer are bounded by an AIMD window ({@link WindowedTransport});
 *       one beyond it fails at once and strikes nobody.</li>
 *   <li>All mutable state belongs to one {@link OwnerThread}; all time and
 *       the one seeded randomness come from the {@link OverlayRuntime}.</li>
 * </ul>
 */
public final class KademliaDht implements Dht {

    /** Lookup counters: how many ran, their mean and largest round count. */
    public record LookupMetrics(long lookups, double meanRounds, long maxRounds) {
    }

    /** How often the node works out which points it coordinates, for the balancer. */
    private static final long OWNERSHIP_EVERY_MILLIS = 500;
    /** How often the owner thread's lag is sampled. */
    private static final Duration LAG_TICK = Duration.ofMillis(200);
    /** A tick later than 1/n of the RPC timeout is lag; less is a busy thread's ordinary jitter. */
    private static final int LAG_TOLERANCE_DIVISOR = 20;
    /** How long a span of lag is remembered: well past any suspicion window. */
    private static final Duration LAG_HORIZON = Duration.ofSeconds(60);
    /** How long after a spell of lag ends republishing still pauses between its batches. */
    private static final Duration PACING_RECENT = Duration.ofSeconds(5);
    /**
     * RPC timeouts after this node announced itself, and after a contact
     * left its table in the wake of another change, before it answers for
     * the keys it coordinates from its own store ({@link LocalAuthority}):
     * the hand-overs that give it keys start two of them after a change and
     * then take seconds.
     */
    private static final int SETTLE_RPC_TIMEOUTS = 10;
    /** How far behind the owner thread has been. */
    private final SchedulingLag lag;
    private final IdSpace space = IdSpace.SHA1;
    private final Contact self;
    private final OverlayRuntime runtime;
    private final KademliaOptions options;
    private final RoutingTable table;
    private final ReplicaStore store;
    private final OwnerThread owner;
    private final KademliaClient client;
    private final IterativeLookups lookups;
    private final LocalAuthority authority;
    private final WriteCoordinator coordinator;
    private final KademliaServer server;
    private final KademliaMaintenance maintenance;
    /** The points this node is closest to among the contacts it knows, as of its last look: read by any thread. */
    private volatile KeyRangeSet owned = KeyRangeSet.NONE;
    /** The exact size of that cell, stripes too fine for {@link #owned} included. */
    private volatile double ownedShare;
    private volatile List<Peer> known = List.of();
    private final Optional<WriteBehindValues> disk;

    KademliaDht(Contact self, OverlayRuntime runtime, int replicas, KademliaOptions options) {
        this(self, runtime, replicas, options, Optional.empty());
    }

    /**
     * A node that starts from the values {@code disk} read back and reports
     * every change of its store to it; it closes {@code disk} when it stops.
     */
    KademliaDht(Contact self, OverlayRuntime runtime, int replicas, KademliaOptions options,
                Optional<WriteBehindValues> disk) {
        this.self = self;
        this.disk = disk;
        this.runtime = runtime;
        this.options = options;
        int copies = Math.max(1, Math.min(replicas, options.k()));
        this.table = new RoutingTable(space, self.id(), options.k());
        SplittableRandom random = new SplittableRandom(self.id().longValue() ^ runtime.seed());
        this.owner = new OwnerThread(runtime.owner(), self.overlay());
        // A prepared write waits for its commit as long as the coordinator's round trips and retransmissions take.
        this.store = new ReplicaStore(4 * options.rpcTimeout().toMillis(),
                disk.<HeldValueLog>map(d -> d).orElse(HeldValueLog.NONE));
        // Held as a repair would leave them; the first hand-over, once the join has filled the table, gives them
        // to their other holders again.
        disk.ifPresent(d -> d.recovered().forEach(store::restore));
        // A contact is written off once it stayed silent through two whole RPC timeouts, retries included.
        // Timeouts while this node's own owner thread lags are excused, and that lag extends the window.
        this.lag = new SchedulingLag(options.rpcTimeout().toNanos() / LAG_TOLERANCE_DIVISOR, LAG_HORIZON.toNanos());
        ContactHealth health = new ContactHealth(copies, 2 * options.rpcTimeout().toMillis(),
                options.rpcTimeout().toMillis(), lag);
        this.client = new KademliaClient(self, table, health, owner, runtime, options.rpcTimeout());
        this.lookups = new IterativeLookups(space, self, options, copies, table, health, store, client, owner, runtime);
        this.authority = new LocalAuthority(space, self, table, health, client,
                SETTLE_RPC_TIMEOUTS * options.rpcTimeout().toMillis(), runtime::millis);
        this.coordinator = new WriteCoordinator(space, self, options, copies, table, store, client, lookups, authority,
                owner, runtime, random);
        this.server = new KademliaServer(space, self, options.k(), table, health, store, client, coordinator, owner,
                runtime);
        this.maintenance = new KademliaMaintenance(space, self, options, copies, table, health, store, client, lookups,
                coordinator, owner, runtime, random,
                new HandOverPacing(lag, PACING_RECENT, options.rpcTimeout().dividedBy(2)));
    }

    void attach(OverlayTransport transport) {
        // PINGs tell a slow contact from a dead one, so they pass a full window.
        PeerWindows<HostPort> windows = new PeerWindows<>(PeerWindows.INITIAL, PeerWindows.MIN, PeerWindows.MAX,
                options.rpcTimeout().toNanos());
        client.attach(new WindowedTransport(transport, windows, Set.of(KademliaWire.PING), runtime.nanos()));
    }

    Contact contact() {
        return self;
    }

    /** Lookups run and their average rounds (hops): the metric the issue asks for. */
    public LookupMetrics lookupMetrics() {
        return lookups.metrics();
    }

    /** How many contacts the routing table holds (for tests and logs). */
    CompletableFuture<Integer> routingTableSize() {
        return owner.call(() -> CompletableFuture.completedFuture(table.size()));
    }

    /** This node's own copy of {@code key}, expired or not (for tests). */
    CompletableFuture<Optional<StoredValue>> copyOf(String key) {
        return owner.call(() -> CompletableFuture.completedFuture(store.get(key)));
    }

    /** STOREs this node sent to hand keys to new holders or republish them, one per key and holder (for tests). */
    long republishStores() {
        return maintenance.storesSent();
    }

    /** REPAIR messages those STOREs went in (for tests). */
    long repairMessages() {
        return maintenance.repairMessages();
    }

    Duration rpcTimeout() {
        return options.rpcTimeout();
    }

    CompletableFuture<Void> join(List<HostPort> seeds) {
        return maintenance.join(seeds);
    }

    /**
     * Joins as {@link #join} does, but holds this node's share of the keys
     * back: its requests ask peers not to put it in their tables, its
     * lookups leave it out of every key's holders, and it claims no range,
     * until {@link #claimShare}. A node warming up on a loaded host would
     * otherwise become the closest node to a share of the keys while its
     * JVM is still cold, and every write to them would wait on it.
     */
    CompletableFuture<Void> joinHoldingShare(List<HostPort> seeds) {
        if (!seeds.isEmpty()) {
            client.holdBack();
        }
        return maintenance.join(seeds);
    }

    /** Announces this node to the nodes closest to it, whose hand-over then sends it its keys. */
    @Override
    public CompletableFuture<Void> claimShare() {
        if (client.announced()) {
            return CompletableFuture.completedFuture(null);
        }
        client.announce();
        return maintenance.announce().exceptionally(e -> null)
                .thenCompose(v -> owner.call(() -> {
                    publishOwnership();
                    return CompletableFuture.<Void>completedFuture(null);
                }));
    }

    void startMaintenance() {
        maintenance.start();
        owner.every(OWNERSHIP_EVERY_MILLIS, OWNERSHIP_EVERY_MILLIS, this::publishOwnership);
        new LagMonitor(runtime.owner(), runtime.nanos(), LAG_TICK, lag).start();
    }

    /** Serves one authenticated request; called on a Netty thread, runs on the owner thread. */
    CompletableFuture<byte[]> handle(int type, byte[] payload) {
        return server.handle(type, payload);
    }

    // ---- the SPI -------------------------------------------------------------------------------

    @Override
    public String backendName() {
        return KademliaDhtProvider.NAME;
    }

    @Override
    public Peer self() {
        return peerOf(self);
    }

    private Peer peerOf(Contact c) {
        return new Peer(space.hex(c.id()), c.sip());
    }

    @Override
    public CompletableFuture<Optional<VersionedValue>> get(String key) {
        return owner.call(() -> authority.answersFor(key)
                        ? CompletableFuture.completedFuture(store.get(key))
                        : lookups.read(key, runtime.nanos().getAsLong() + options.operationTimeout().toNanos())
                                .thenApply(LookupResult::best))
                .thenApply(best -> {
                    long now = runtime.clock().millis();
                    return best.filter(v -> v.liveAt(now))
                            .map(v -> new VersionedValue(v.value().clone(), v.version(),
                                    Instant.ofEpochMilli(v.expiresAtMillis())));
                });
    }

    @Override
    public CompletableFuture<Boolean> putIfVersion(String key, long expectedVersion, byte[] value,
                                                   Instant expiresAt) {
        return coordinator.write(key, expectedVersion, false, value.clone(), expiresAt.toEpochMilli());
    }

    @Override
    public CompletableFuture<Boolean> removeIfVersion(String key, long expectedVersion) {
        return coordinator.write(key, expectedVersion, true, new byte[0], 0);
    }

    /**
     * The values this node stores. Read outside the owner thread: a racy
     * read of a count, at worst a moment old, and all the registration cap
     * needs.
     */
    @Override
    public long storedEntries() {
        return store.size();
    }

    /** The points this node coordinates ({@link XorCells}), as of its last look at its routing table. */
    @Override
    public Optional<KeyRangeSet> ownedRanges() {
        return Optional.of(owned);
    }

    /** The exact share of the points this node coordinates ({@link XorCells#share}), fine stripes included. */
    @Override
    public OptionalDouble ownedShare() {
        return OptionalDouble.of(ownedShare);
    }

    /** The routing table's contacts as of its last look at them (every {@value #OWNERSHIP_EVERY_MILLIS} ms). */
    @Override
    public List<Peer> knownPeers() {
        return known;
    }

    /** Contacts evicted because their requests kept timing out while this node kept up. */
    @Override
    public long peersWrittenOff() {
        return client.peersWrittenOff();
    }

    /** On the owner thread: what the routing table says, for readers on any thread. */
    private void publishOwnership() {
        List<Contact> contacts = table.contacts();
        boolean announced = client.announced();
        long point = space.pointOf(self.id());
        List<Long> others = contacts.stream().map(c -> space.pointOf(c.id())).toList();
        owned = announced ? XorCells.of(point, others) : KeyRangeSet.NONE;
        ownedShare = announced ? XorCells.share(point, others) : 0;
        known = contacts.stream().map(this::peerOf).toList();
    }

    @Override
    public CompletableFuture<Placement> placement(String key) {
        return owner.call(() -> lookups.lookup(space.idOf(key), Optional.empty(), lookups.keyWidth())).thenApply(r -> {
            List<Contact> holders = lookups.replicasOf(r.closest());
            return new Placement(peerOf(holders.get(0)),
                    holders.subList(1, holders.size()).stream().map(this::peerOf).toList());
        });
    }

    /** Leaves without a word, as a crash would; peers learn it through timeouts. */
    @Override
    public void close() {
        if (!owner.markClosed()) {
            return;
        }
        client.closeTransport();
        owner.stop();
        disk.ifPresent(WriteBehindValues::close);
    }

    /** For logs. */
    @Override
    public String toString() {
        return "KademliaDht[" + self.overlay() + " " + space.hex(self.id()).substring(0, 8) + "]";
    }
}
