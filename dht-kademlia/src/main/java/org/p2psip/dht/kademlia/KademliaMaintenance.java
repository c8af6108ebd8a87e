package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.p2psip.core.dht.DhtException;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.HandOverPacing;
import org.p2psip.core.overlay.OverlayException;
import org.p2psip.core.overlay.OverlayRuntime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a Kademlia node joins and keeps its view of the overlay current, on
 * its owner thread: joining (§2.3), bucket refresh for buckets without a
 * lookup in {@code refresh-ms} (§2.3), handing keys over to their new
 * holders whenever the routing table's membership changes
 * ({@link HolderShift}, debounced by {@link MembershipDebounce}),
 * republishing every stored value every {@code republish-ms} (§2.5's hour by
 * default) as a safety net — skipped when another node has re-stored it
 * meanwhile — purging expired values, and probing suspected contacts
 * ({@link ContactHealth}).
 *
 * <p>Why membership rather than the clock drives republishing: a key's
 * holders move only when a node joins, comes back or is taken for dead, and
 * republishing every value on a short clock cost a lookup and a STORE per
 * key each round — with a few hundred thousand bindings on three nodes,
 * more than the foreground, so that under load lookups starved and capacity
 * collapsed. A membership change now costs a STORE per key whose holders it
 * moved, and a quiet overlay costs nothing.
 */
final class KademliaMaintenance {

    private static final Logger LOG = LoggerFactory.getLogger(KademliaMaintenance.class);

    private static final int REPUBLISH_IN_FLIGHT = 32;
    /**
     * About the most bytes of keys and values one REPAIR carries: it travels
     * as one datagram, which a network with the usual 1,500-byte MTU splits
     * into a dozen fragments, any of which lost loses it.
     */
    static final int REPAIR_BYTES = 16 * 1024;
    /**
     * Keys a hand-over looks at in one owner-thread task: working out a
     * key's holders is a hash and a distance per contact, so a store of
     * hundreds of thousands is scanned in slices between which the
     * foreground's tasks run.
     */
    private static final int SCAN_SLICE = 1_024;
    /** How often expired values are dropped: often, whatever the republish interval. */
    private static final long PURGE_EVERY_MILLIS = 30_000;
    /**
     * A hand-over waits for the table to be quiet this many RPC timeouts:
     * long enough for a contact written off by mistake to answer a probe
     * (one per RPC timeout) and undo the change.
     */
    private static final int QUIET_RPC_TIMEOUTS = 2;
    /** However busy the table, a change is handed over within this many RPC timeouts (and a pass). */
    private static final int MAX_WAIT_RPC_TIMEOUTS = 20;

    private final IdSpace space;
    private final Contact self;
    private final KademliaOptions options;
    private final RoutingTable table;
    private final ContactHealth health;
    private final ReplicaStore store;
    private final KademliaClient client;
    private final IterativeLookups lookups;
    private final WriteCoordinator coordinator;
    private final OwnerThread owner;
    private final OverlayRuntime runtime;
    private final Clock clock;
    private final SplittableRandom random;
    private final HandOverPacing pacing;
    private final int replicas;
    private final MembershipDebounce debounce;
    /** The table's contacts as the last hand-over found them: the "before" of the next one. */
    private List<Contact> handedOverFor = List.of();
    /** STOREs sent by hand-overs and the safety net, one per key and holder; read by any thread. */
    private final AtomicLong storesSent = new AtomicLong();
    /** REPAIR messages sent by hand-overs and the safety net; read by any thread. */
    private final AtomicLong repairMessages = new AtomicLong();

    /** @param replicas how many nodes hold a key, this one counted */
    KademliaMaintenance(IdSpace space, Contact self, KademliaOptions options, int replicas, RoutingTable table,
                        ContactHealth health, ReplicaStore store, KademliaClient client, IterativeLookups lookups,
                        WriteCoordinator coordinator, OwnerThread owner, OverlayRuntime runtime,
                        SplittableRandom random, HandOverPacing pacing) {
        this.pacing = pacing;
        this.replicas = replicas;
        long rpc = options.rpcTimeout().toMillis();
        this.debounce = new MembershipDebounce(QUIET_RPC_TIMEOUTS * rpc, MAX_WAIT_RPC_TIMEOUTS * rpc);
        this.space = space;
        this.self = self;
        this.options = options;
        this.table = table;
        this.health = health;
        this.store = store;
        this.client = client;
        this.lookups = lookups;
        this.coordinator = coordinator;
        this.owner = owner;
        this.runtime = runtime;
        this.clock = runtime.clock();
        this.random = random;
    }

    /**
     * Joins through the first seed that answers a PING (§2.3: insert the seed,
     * look up your own id, refresh the buckets beyond the nearest neighbour).
     * A seed that times out is tried again until the caller's start timeout,
     * since a seed may simply still be starting.
     */
    CompletableFuture<Void> join(List<HostPort> seeds) {
        if (seeds.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return pingSeeds(seeds, 0).thenCompose(seed -> owner.call(() -> {
            client.observe(seed);
            return lookups.lookup(self.id(), Optional.empty(), options.k());
        })).thenCompose(r -> owner.call(() -> refreshBuckets(0)));
    }

    /**
     * A node that held its share back announces itself as a join does: a
     * lookup of its own id, whose requests put it in the tables of the
     * nodes closest to it (their hand-over then sends it its keys), and a
     * refresh of its buckets.
     */
    CompletableFuture<Void> announce() {
        return owner.call(() -> lookups.lookup(self.id(), Optional.empty(), options.k()))
                .thenCompose(r -> owner.call(() -> refreshBuckets(0)));
    }

    private CompletableFuture<Contact> pingSeeds(List<HostPort> seeds, int attempt) {
        if (owner.closed()) {
            return CompletableFuture.failedFuture(new IllegalStateException("closed while joining"));
        }
        HostPort seed = seeds.get(attempt % seeds.size());
        return client.pingSeed(seed).exceptionallyCompose(e -> {
            Throwable cause = OwnerThread.unwrap(e);
            if (cause instanceof OverlayException o && o.reason() == OverlayException.Reason.REMOTE_ERROR) {
                return CompletableFuture.failedFuture(new DhtException("seed " + seed + " refused: "
                        + o.getMessage()));
            }
            return pingSeeds(seeds, attempt + 1);
        });
    }

    /**
     * Schedules hand-overs, the republishing safety net, purging, bucket
     * refresh and probing of suspects on the owner thread.
     */
    void start() {
        long republish = options.republishEvery().toMillis();
        long refresh = options.refreshEvery().toMillis();
        long probe = options.rpcTimeout().toMillis();
        owner.every(republish, republish, this::republishAll);
        owner.every(PURGE_EVERY_MILLIS, PURGE_EVERY_MILLIS, () -> {
            if (!owner.closed()) {
                store.purgeExpired(clock.millis());
            }
        });
        // Looks at the table often enough that the quiet period is measured to a quarter of itself.
        long look = Math.max(1, QUIET_RPC_TIMEOUTS * probe / 4);
        owner.every(look, look, this::handOverIfDue);
        owner.every(refresh, Math.max(1, refresh / 4), () -> {
            if (!owner.closed()) {
                refreshBuckets(refresh);
            }
        });
        owner.every(probe, probe, this::probeSuspects);
    }

    /**
     * §2.3 bucket refresh: a lookup of a random id in every bucket, from the
     * nearest neighbour's outwards, that has had no lookup for
     * {@code idleMillis} (0 on joining, when all of them are refreshed).
     */
    private CompletableFuture<Void> refreshBuckets(long idleMillis) {
        List<CompletableFuture<LookupResult>> all = new ArrayList<>();
        for (int bucket : table.bucketsToRefresh(runtime.millis(), idleMillis)) {
            all.add(lookups.lookup(space.randomIdInBucket(self.id(), bucket, random), Optional.empty(), options.k()));
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).exceptionally(e -> null);
    }

    /**
     * Once the table's membership has changed and settled
     * ({@link MembershipDebounce}), gives every key this node holds whose
     * holders the change moved to its new holders ({@link HolderShift}).
     * The first pass from an empty table — a node's first view, or its view
     * back from a partition — leaves out the keys peers stored here: those
     * peers already saw this node among the holders, and sending each key
     * straight back would double what a join costs.
     */
    private void handOverIfDue() {
        if (owner.closed() || !debounce.startIfDue(table.changes(), runtime.millis())) {
            return;
        }
        List<Contact> before = handedOverFor;
        List<Contact> after = table.contacts();
        handedOverFor = after;
        HolderShift shift = new HolderShift(space, self, replicas, before, after, table.nearestFullBucket());
        if (!shift.changed()) {
            // The changes undid each other (a contact written off answered its probe).
            debounce.ended();
            return;
        }
        List<String> keys = store.unexpiredKeys(clock.millis(), before.isEmpty());
        LOG.debug("{} hands over after its table went from {} to {} contacts: {} keys to look at", self.overlay(),
                before.size(), after.size(), keys.size());
        handOver(shift, keys, 0, new Tally("hand-over"), debounce::ended);
    }

    /**
     * §2.5's hourly republishing, kept as a safety net for what the
     * hand-overs miss (two nodes whose views of the overlay differ can each
     * leave a key to the other): every value no peer re-stored here within
     * the interval is stored at the other holders of its key as this
     * node's table names them (§2.5's second optimisation: no lookup where
     * the table knows the key's neighbourhood). Expired entries are not
     * republished.
     */
    private void republishAll() {
        if (owner.closed()) {
            return;
        }
        long interval = TimeUnit.MILLISECONDS.toNanos(options.republishEvery().toMillis());
        List<String> due = store.dueForRepublish(clock.millis(), runtime.nanos().getAsLong(), interval);
        // From an empty table every holder in the current one is new: this node gives each key to all of them.
        HolderShift everyHolder = new HolderShift(space, self, replicas, List.of(), table.contacts(),
                table.nearestFullBucket());
        handOver(everyHolder, due, 0, new Tally("republish"), () -> { });
    }

    /** REPAIR messages sent by hand-overs and the safety net so far. */
    long repairMessages() {
        return repairMessages.get();
    }

    /** STOREs sent by hand-overs and the safety net so far, one per key and holder. */
    long storesSent() {
        return storesSent.get();
    }

    /** What one pass did, for its log line. */
    private static final class Tally {
        final String what;
        int keys;
        int stores;
        int messages;
        int lookups;

        Tally(String what) {
            this.what = what;
        }
    }

    /**
     * Goes through {@code keys} from {@code from}, doing what {@code shift}
     * asks of each, and runs {@code done} at the end. The keys to give are
     * gathered per new holder and sent as REPAIRs of up to
     * {@link KademliaWire#MAX_REPAIRS} keys (about {@link #REPAIR_BYTES}),
     * a slice of {@link #SCAN_SLICE} keys and at most
     * {@link #REPUBLISH_IN_FLIGHT} lookups at a time; between two slices it
     * pauses while this node lags ({@link HandOverPacing}) so a hand-over
     * cannot starve the foreground. A holder that died takes a third of its peers' keys with
     * it, and one message per key doubled the survivors' overlay traffic for
     * the seconds it took, when they were carrying its load as well (issue
     * 33). A new holder that has left the table since the pass began is
     * skipped: it left in a change of its own, whose pass finds the key a
     * holder in its place.
     */
    private void handOver(HolderShift shift, List<String> keys, int from, Tally tally, Runnable done) {
        if (owner.closed()) {
            return;
        }
        long wall = clock.millis();
        int end = Math.min(keys.size(), from + SCAN_SLICE);
        int at = from;
        Map<Contact, List<KademliaWire.Repair>> gifts = new LinkedHashMap<>();
        List<CompletableFuture<?>> batch = new ArrayList<>();
        while (at < end && batch.size() < REPUBLISH_IN_FLIGHT) {
            String key = keys.get(at++);
            Optional<StoredValue> held = store.get(key);
            if (held.isEmpty() || held.get().expiresAtMillis() <= wall) {
                continue;
            }
            tally.keys++;
            BigInteger keyId = space.idOf(key);
            HolderShift.Duty duty = shift.dutyFor(keyId);
            if (duty instanceof HolderShift.Duty.Give give) {
                for (Contact to : give.newcomers()) {
                    if (table.find(to.id()).isPresent()) {
                        tally.stores++;
                        storesSent.incrementAndGet();
                        gifts.computeIfAbsent(to, c -> new ArrayList<>()).add(new KademliaWire.Repair(key, held.get()));
                    }
                }
            } else if (duty instanceof HolderShift.Duty.LookUp lookUp) {
                tally.lookups++;
                batch.add(lookups.lookup(keyId, Optional.empty(), lookups.keyWidth())
                        .thenCompose(r -> owner.call(() -> storeAtNewHolders(key, r, lookUp.formerHolders()))));
            }
        }
        gifts.forEach((holder, repairs) -> messages(repairs).forEach(m -> {
            tally.messages++;
            repairMessages.incrementAndGet();
            batch.add(repair(holder, m));
        }));
        int next = at;
        if (next >= keys.size() && batch.isEmpty()) {
            if (tally.stores > 0 || tally.lookups > 0) {
                LOG.info("{} {}: {} keys looked at, {} stores ({} messages), {} lookups", self.overlay(), tally.what,
                        tally.keys, tally.stores, tally.messages, tally.lookups);
            }
            done.run();
            return;
        }
        CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new))
                .handle((v, err) -> null)
                .thenCompose(v -> owner.later(batch.isEmpty() ? 0 : pacing.pauseAt(runtime.nanos().getAsLong())
                        .toNanos(), TimeUnit.NANOSECONDS))
                .whenCompleteAsync((v, err) -> {
                    if (err == null) {
                        handOver(shift, keys, next, tally, done);
                    }
                }, owner.executor());
    }

    /** {@code repairs} cut into REPAIRs of at most {@link KademliaWire#MAX_REPAIRS} keys and about that many bytes. */
    static List<List<KademliaWire.Repair>> messages(List<KademliaWire.Repair> repairs) {
        List<List<KademliaWire.Repair>> out = new ArrayList<>();
        List<KademliaWire.Repair> current = new ArrayList<>();
        int bytes = 0;
        for (KademliaWire.Repair r : repairs) {
            boolean full = current.size() == KademliaWire.MAX_REPAIRS || bytes + r.wireBytes() > REPAIR_BYTES;
            if (!current.isEmpty() && full) {
                out.add(current);
                current = new ArrayList<>();
                bytes = 0;
            }
            current.add(r);
            bytes += r.wireBytes();
        }
        if (!current.isEmpty()) {
            out.add(current);
        }
        return out;
    }

    /**
     * One REPAIR to {@code holder}. A holder too old to know the message
     * answers with an error: it gets the keys one STORE at a time, as
     * before, so a cluster can be upgraded one node at a time.
     */
    private CompletableFuture<?> repair(Contact holder, List<KademliaWire.Repair> repairs) {
        return client.repair(holder, repairs).exceptionallyCompose(e -> owner.call(() -> {
            Throwable cause = OwnerThread.unwrap(e);
            if (cause instanceof OverlayException o && o.reason() == OverlayException.Reason.REMOTE_ERROR) {
                List<CompletableFuture<?>> one = new ArrayList<>();
                for (KademliaWire.Repair r : repairs) {
                    one.add(coordinator.storeAt(r.key(), r.value(), ReplicaStore.REPAIR, List.of(holder)));
                }
                return CompletableFuture.allOf(one.toArray(CompletableFuture[]::new)).thenApply(v -> List.of());
            }
            return CompletableFuture.failedFuture(e);
        }));
    }

    /** After a {@link HolderShift.Duty.LookUp}: the key's holders found that are new since the change. */
    private CompletableFuture<Boolean> storeAtNewHolders(String key, LookupResult found, Set<BigInteger> former) {
        Optional<StoredValue> held = store.get(key);
        List<Contact> to = lookups.replicasOf(found.closest()).stream()
                .filter(c -> !c.id().equals(self.id()) && !former.contains(c.id())).toList();
        if (held.isEmpty() || to.isEmpty()) {
            return CompletableFuture.completedFuture(true);
        }
        storesSent.addAndGet(to.size());
        return coordinator.storeAt(key, held.get(), ReplicaStore.REPAIR, to);
    }

    /**
     * Probes a few suspected contacts: one that answers is back in the
     * table at once, so nodes separated by a partition or a pause find each
     * other when it ends rather than after the suspicion has run out.
     */
    private void probeSuspects() {
        if (owner.closed()) {
            return;
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} knows {} contacts and suspects {}", self.overlay(), table.size(),
                    health.suspects(runtime.millis()).size());
        }
        if (!health.anySuspected()) {
            return;
        }
        for (Contact suspect : health.nextProbes(options.alpha(), runtime.millis())) {
            client.probe(suspect);
        }
    }
}
