package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtException;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.Placement;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.OverlayException;
import org.p2psip.core.overlay.OverlayRuntime;
import org.p2psip.core.overlay.OverlayTransport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Kademlia node (Maymounkov &amp; Mazières) on core's UDP overlay
 * transport, serving the {@link Dht} SPI.
 *
 * <p><b>Routing</b> follows the paper: k-buckets updated by every message
 * (§2.2, ping-before-evict through {@link RoutingTable}), iterative lookups
 * with α parallel queries ({@link NodeLookup}, §2.3), bucket refresh for
 * buckets without a lookup in {@code refresh-ms}, and republishing of every
 * stored value every {@code republish-ms} to the key's closest nodes (§2.5),
 * skipped when another node has re-stored it meanwhile.
 *
 * <p><b>Replication and no lost updates.</b> A key lives on its
 * {@code min(replicas, k)} closest nodes. Conditional writes are not blind
 * STOREs: they go to the key's <em>coordinator</em>, the closest live node
 * to the key as a lookup finds it. The coordinator serialises writes per key,
 * reads the highest version among the k closest nodes (FIND_VALUE), compares
 * it with the version the writer read, gives the write a fresh higher
 * version and STOREs it to the replicas; it acknowledges only once all of
 * them hold it. A replica takes a coordinated STORE only if it holds nothing
 * newer than the version the coordinator compared against, and only from
 * the closest live node it knows (it pings a closer one it still lists), so
 * a node that has merely lost sight of the coordinator cannot act as a
 * second one through a shared replica. Republished copies only move a
 * replica forward, and a removal is a versioned tombstone. When the
 * coordinator dies the writer falls back to the next closest node, which
 * becomes coordinator by the same rule; a write retried after a lost answer
 * is recognised by its write id. Chosen over a mergeable value because the
 * SPI is byte-level compare-and-set: the coordinator gives it exactly that.
 * The remaining gap: two coordinators whose replica sets do not overlap
 * (views differing by two or more nodes, e.g. in a partition) can each
 * commit; a prepare/commit round would close it.
 *
 * <p><b>Threading.</b> All mutable state (routing table, store, lookups)
 * belongs to one owner thread; Netty threads decode and hand off.
 */
public final class KademliaDht implements Dht {

    private static final Logger LOG = LoggerFactory.getLogger(KademliaDht.class);
    /** How long a removal's tombstone outlives the write, so lagging replicas cannot resurrect the value. */
    private static final long TOMBSTONE_MILLIS = 10 * 60_000;
    /** An expired entry is kept this long so its version is still seen (versions are never reused). */
    private static final long EXPIRED_GRACE_MILLIS = 10 * 60_000;
    private static final int REPUBLISH_IN_FLIGHT = 32;
    /** How long a contact that timed out is left out of lookups unless it speaks first. */
    private static final long SUSPECT_MILLIS = 30_000;
    /** The {@code prev} of a STORE that repairs or republishes rather than writes. */
    private static final long REPAIR = -1;
    /** Failed requests in a row after which a contact leaves the routing table. */
    private static final int STRIKES = 3;
    private static final int STORE_REFUSED_NEWER = 0;
    private static final int STORE_TAKEN = 1;
    private static final int STORE_REFUSED_NOT_COORDINATOR = 2;
    /** Pause before a writer retries after a failed attempt, so a settling overlay is not hammered. */
    private static final long RETRY_PAUSE_MILLIS = 50;
    /** How long a read's view of a key's closest nodes is reused for the write that follows it. */
    private static final long RECENT_MILLIS = 2_000;
    /** Upper bound of the random pause after a lost compare-and-set. */
    private static final long CONFLICT_PAUSE_MICROS = 20_000;

    /** A finished lookup: the closest live nodes including this one, the best value seen, its rounds. */
    record LookupResult(List<Contact> closest, Optional<StoredValue> best, int rounds, int answered) {
    }

    private record Entry(StoredValue value, long lastStoredByPeerNanos) {
    }

    /** A coordinated write a holder has prepared, waiting for its commit until {@code untilMillis}. */
    private record Prepared(StoredValue value, long untilMillis) {
    }

    /** A contact that stopped answering, and since when (table milliseconds). */
    private record Suspect(Contact contact, long since, long probedAt) {
    }

    /** The closest nodes a read of a key just found, kept briefly so the write after it skips a lookup. */
    private record Recent(List<Contact> closest, long atMillis) {
    }

    private final IdSpace space = IdSpace.SHA1;
    private final Contact self;
    private final Clock clock;
    private final OverlayRuntime runtime;
    private final int replicas;
    private final KademliaOptions options;
    private final RoutingTable table;
    private final Map<String, Entry> store = new HashMap<>();
    /** Coordinated writes prepared here and not yet committed or dropped, by key. */
    private final Map<String, Prepared> prepared = new HashMap<>();
    private final Map<String, CompletableFuture<?>> writeQueues = new HashMap<>();
    private final Map<String, Recent> recentClosest = new java.util.LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Recent> eldest) {
            return size() > 10_000;
        }
    };
    /** Consecutive failed requests per contact. */
    private final Map<BigInteger, Integer> strikes = new HashMap<>();
    /**
     * Contacts that timed out recently, by id, with when: not asked in
     * lookups while suspected, but probed, so that both sides of a healed
     * partition find each other again.
     */
    private final Map<BigInteger, Suspect> suspected = new HashMap<>();
    /** Keys whose latest version this node wrote as coordinator (dropped when a peer stores a version). */
    private final Map<String, Long> coordinated = new HashMap<>();
    private final ScheduledExecutorService owner;
    private final SplittableRandom random;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong lookups = new AtomicLong();
    private final AtomicLong lookupRounds = new AtomicLong();
    private final AtomicLong maxLookupRounds = new AtomicLong();
    private long lastVersion;
    private volatile OverlayTransport transport;

    KademliaDht(Contact self, OverlayRuntime runtime, int replicas, KademliaOptions options) {
        this.self = self;
        this.runtime = runtime;
        this.clock = runtime.clock();
        this.options = options;
        this.replicas = Math.max(1, Math.min(replicas, options.k()));
        this.table = new RoutingTable(space, self.id(), options.k());
        this.random = new SplittableRandom(self.id().longValue() ^ runtime.seed());
        this.owner = runtime.owner();
    }

    void attach(OverlayTransport transport) {
        this.transport = transport;
    }

    Contact contact() {
        return self;
    }

    /** Lookups run and their average rounds (hops): the metric the issue asks for. */
    public LookupMetrics lookupMetrics() {
        long n = lookups.get();
        return new LookupMetrics(n, n == 0 ? 0 : (double) lookupRounds.get() / n, maxLookupRounds.get());
    }

    /** Lookup counters: how many ran, their mean and largest round count. */
    public record LookupMetrics(long lookups, double meanRounds, long maxRounds) {
    }

    /** How many contacts the routing table holds (for tests and logs). */
    CompletableFuture<Integer> routingTableSize() {
        return onOwner(() -> CompletableFuture.completedFuture(table.size()));
    }

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

    // ---------------------------------------------------------------- join and maintenance

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
        return pingSeeds(seeds, 0).thenCompose(seed -> onOwner(() -> {
            observe(seed);
            return lookup(self.id(), Optional.empty(), options.k());
        })).thenCompose(r -> onOwner(() -> refreshBuckets(0)));
    }

    private CompletableFuture<Contact> pingSeeds(List<HostPort> seeds, int attempt) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(new IllegalStateException("closed while joining"));
        }
        HostPort seed = seeds.get(attempt % seeds.size());
        return transport.request(seed, KademliaWire.PING, new KademliaWire.Out().contact(self).bytes(),
                        options.rpcTimeout())
                .thenApply(answer -> new KademliaWire.In(answer).contact())
                .exceptionallyCompose(e -> {
                    Throwable cause = unwrap(e);
                    if (cause instanceof OverlayException o && o.reason() == OverlayException.Reason.REMOTE_ERROR) {
                        return CompletableFuture.failedFuture(new DhtException("seed " + seed + " refused: "
                                + o.getMessage()));
                    }
                    return pingSeeds(seeds, attempt + 1);
                });
    }

    void startMaintenance() {
        long republish = options.republishEvery().toMillis();
        long refresh = options.refreshEvery().toMillis();
        owner.scheduleWithFixedDelay(this::republishAndExpire, republish, republish, TimeUnit.MILLISECONDS);
        owner.scheduleWithFixedDelay(() -> {
            if (!closed.get()) {
                refreshBuckets(refresh);
            }
        }, refresh, Math.max(1, refresh / 4), TimeUnit.MILLISECONDS);
        long probe = options.rpcTimeout().toMillis();
        owner.scheduleWithFixedDelay(this::probeSuspects, probe, probe, TimeUnit.MILLISECONDS);
    }

    /**
     * §2.3 bucket refresh: a lookup of a random id in every bucket, from the
     * nearest neighbour's outwards, that has had no lookup for
     * {@code idleMillis} (0 on joining, when all of them are refreshed).
     */
    private CompletableFuture<Void> refreshBuckets(long idleMillis) {
        List<CompletableFuture<LookupResult>> all = new ArrayList<>();
        for (int bucket : table.bucketsToRefresh(tableMillis(), idleMillis)) {
            all.add(lookup(space.randomIdInBucket(self.id(), bucket, random), Optional.empty(), options.k()));
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).exceptionally(e -> null);
    }

    /**
     * §2.5, with a short interval: every value this node holds is stored
     * again at the key's closest nodes, unless a peer re-stored it here
     * within the interval (then that peer republished it already). Expired
     * entries are dropped once their grace period is over.
     */
    private void republishAndExpire() {
        if (closed.get()) {
            return;
        }
        long now = clock.millis();
        long interval = TimeUnit.MILLISECONDS.toNanos(options.republishEvery().toMillis());
        List<String> due = new ArrayList<>();
        store.entrySet().removeIf(e -> now > e.getValue().value().expiresAtMillis() + EXPIRED_GRACE_MILLIS);
        coordinated.keySet().retainAll(store.keySet());
        for (Map.Entry<String, Entry> e : store.entrySet()) {
            if (e.getValue().value().expiresAtMillis() > now
                    && runtime.nanos().getAsLong() - e.getValue().lastStoredByPeerNanos() >= interval) {
                due.add(e.getKey());
            }
        }
        republishSome(due, 0);
    }

    private void republishSome(List<String> keys, int from) {
        if (from >= keys.size() || closed.get()) {
            return;
        }
        int to = Math.min(keys.size(), from + REPUBLISH_IN_FLIGHT);
        List<CompletableFuture<?>> batch = new ArrayList<>();
        for (String key : keys.subList(from, to)) {
            Entry e = store.get(key);
            if (e == null) {
                continue;
            }
            batch.add(lookup(space.idOf(key), Optional.empty(), keyWidth())
                    .thenCompose(r -> onOwner(() -> storeAt(key, e.value(), REPAIR, replicasOf(r.closest())))));
        }
        CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new))
                .whenCompleteAsync((v, err) -> republishSome(keys, to), owner);
    }

    // ---------------------------------------------------------------- the SPI

    @Override
    public CompletableFuture<Optional<VersionedValue>> get(String key) {
        return onOwner(() -> read(key, runtime.nanos().getAsLong() + options.operationTimeout().toNanos()))
                .thenApply(r -> {
            long now = clock.millis();
            return r.best().filter(v -> v.liveAt(now))
                    .map(v -> new VersionedValue(v.value().clone(), v.version(),
                            Instant.ofEpochMilli(v.expiresAtMillis())));
        });
    }

    /**
     * A FIND_VALUE lookup that counts only once it has heard from enough of
     * the overlay ({@link #othersNeeded()}); a node that has just been cut
     * off or paused tries again while its probes refill its table, rather
     * than report a key absent that its holders still have.
     */
    private CompletableFuture<LookupResult> read(String key, long deadline) {
        return lookup(space.idOf(key), Optional.of(key), options.k()).thenCompose(r -> onOwner(() -> {
            if (r.answered() >= othersNeeded()) {
                // A read usually precedes a conditional write: remember who the coordinator is.
                recentClosest.put(key, new Recent(r.closest(), tableMillis()));
                return CompletableFuture.completedFuture(r);
            }
            if (runtime.nanos().getAsLong() > deadline) {
                return CompletableFuture.failedFuture(tooFewReached(key, r.answered()));
            }
            return later(RETRY_PAUSE_MILLIS, TimeUnit.MILLISECONDS).thenCompose(v -> onOwner(() -> read(key,
                    deadline)));
        }));
    }

    @Override
    public CompletableFuture<Boolean> putIfVersion(String key, long expectedVersion, byte[] value,
                                                   Instant expiresAt) {
        return write(key, expectedVersion, false, value.clone(), expiresAt.toEpochMilli());
    }

    @Override
    public CompletableFuture<Boolean> removeIfVersion(String key, long expectedVersion) {
        return write(key, expectedVersion, true, new byte[0], 0);
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

    @Override
    public CompletableFuture<Placement> placement(String key) {
        return onOwner(() -> lookup(space.idOf(key), Optional.empty(), keyWidth())).thenApply(r -> {
            List<Contact> holders = replicasOf(r.closest());
            return new Placement(peerOf(holders.get(0)),
                    holders.subList(1, holders.size()).stream().map(this::peerOf).toList());
        });
    }

    /**
     * How many of the closest live nodes placement, republish and a
     * writer's search for the coordinator must hear from: twice the replica
     * count (capped by k), enough to find the closest live node after
     * {@code replicas} − 1 crashes. Reads of values (FIND_VALUE, by readers
     * and by the coordinator before a write) and routing lookups use the
     * paper's full k: a copy stored while views were still incomplete may
     * sit beyond the 2·replicas closest until the next republish moves it.
     */
    private int keyWidth() {
        return Math.min(options.k(), Math.max(options.alpha(), 2 * replicas));
    }

    private List<Contact> replicasOf(List<Contact> closest) {
        return closest.subList(0, Math.min(replicas, closest.size()));
    }

    /**
     * The writer's side: find the coordinator (the closest live node) and
     * ask it; when it is dead, forget it and ask the next closest; when it
     * names a closer node, look up again. Retried until the operation timeout.
     */
    private CompletableFuture<Boolean> write(String key, long expected, boolean remove, byte[] value,
                                             long expiresAtMillis) {
        return onOwner(() -> {
            long deadline = runtime.nanos().getAsLong() + options.operationTimeout().toNanos();
            long writeId = random.nextLong();
            byte[] request = new KademliaWire.Out().contact(self).text(key).num(expected).flag(remove).blob(value)
                    .num(expiresAtMillis).num(writeId).bytes();
            return attemptWrite(key, expected, remove, value, expiresAtMillis, writeId, request, deadline, null)
                    .thenCompose(written -> written ? CompletableFuture.completedFuture(true) : afterConflict());
        });
    }

    /**
     * A refused conditional write completes after a short random pause: the
     * caller will re-read and retry, and writers that lost together would
     * otherwise retry in lockstep and collide again, starving the unluckiest
     * (randomised backoff, as in Ethernet; it costs only the losers).
     */
    private CompletableFuture<Boolean> afterConflict() {
        return onOwner(() -> later(random.nextLong(CONFLICT_PAUSE_MICROS), TimeUnit.MICROSECONDS))
                .thenApply(v -> false);
    }

    /** Completes on the owner thread after the pause; fails if the node closes first. */
    private CompletableFuture<Void> later(long pause, TimeUnit unit) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            owner.schedule(() -> done.complete(null), pause, unit);
        } catch (RejectedExecutionException e) {
            done.completeExceptionally(new IllegalStateException("kademlia node " + self.overlay() + " is closed"));
        }
        return done;
    }

    private CompletableFuture<Boolean> attemptWrite(String key, long expected, boolean remove, byte[] value,
                                                    long expiresAtMillis, long writeId, byte[] request,
                                                    long deadline, Throwable last) {
        if (runtime.nanos().getAsLong() > deadline) {
            return CompletableFuture.failedFuture(new DhtException("write of " + key + " found no coordinator within "
                    + options.operationTimeout().toMillis() + " ms" + (last == null ? "" : ": " + last.getMessage())));
        }
        Recent recent = last == null ? recentClosest.remove(key) : null;
        CompletableFuture<LookupResult> where = recent != null && tableMillis() - recent.atMillis() < RECENT_MILLIS
                && !isSuspected(recent.closest().get(0).id(), tableMillis())
                ? CompletableFuture.completedFuture(new LookupResult(recent.closest(), Optional.empty(), 0, recent.closest().size() - 1))
                : lookup(space.idOf(key), Optional.empty(), keyWidth());
        return where.thenCompose(r -> onOwner(() -> {
            Contact coordinator = r.closest().get(0);
            CompletableFuture<Boolean> answer = coordinator.id().equals(self.id())
                    ? coordinate(key, expected, remove, value, expiresAtMillis, writeId)
                    // The coordinator runs lookups of its own before answering, so it gets longer than one RPC.
                    : send(coordinator, KademliaWire.WRITE, request, options.rpcTimeout().multipliedBy(4))
                            .thenApply(b -> b.length == 1 && b[0] == 1);
            return answer.exceptionallyCompose(e -> onOwner(() -> {
                Throwable cause = unwrap(e);
                if (cause instanceof IllegalStateException && closed.get()) {
                    return CompletableFuture.failedFuture(cause);
                }
                LOG.debug("write of {} via coordinator {} failed, retrying: {}", key, coordinator.overlay(),
                        cause.toString());
                return later(RETRY_PAUSE_MILLIS, TimeUnit.MILLISECONDS).thenCompose(v -> onOwner(() -> attemptWrite(key, expected, remove,
                        value, expiresAtMillis, writeId, request, deadline, cause)));
            }));
        }));
    }

    /** The coordinator's side of a conditional write: serialised per key on the owner thread. */
    private CompletableFuture<Boolean> coordinate(String key, long expected, boolean remove, byte[] value,
                                                  long expiresAtMillis, long writeId) {
        CompletableFuture<?> previous = writeQueues.getOrDefault(key, CompletableFuture.completedFuture(null));
        CompletableFuture<Boolean> result = previous.handleAsync((v, e) -> null, owner)
                .thenCompose(ignored -> coordinateNow(key, expected, remove, value, expiresAtMillis, writeId));
        CompletableFuture<?> tail = result.handle((v, e) -> null);
        writeQueues.put(key, tail);
        tail.whenCompleteAsync((v, e) -> writeQueues.remove(key, tail), owner);
        return result;
    }

    private CompletableFuture<Boolean> coordinateNow(String key, long expected, boolean remove, byte[] value,
                                                     long expiresAtMillis, long writeId) {
        BigInteger keyId = space.idOf(key);
        Long mine = coordinated.get(key);
        Entry held = store.get(key);
        List<Contact> known = table.closest(keyId, replicas);
        boolean stillClosest = known.isEmpty()
                || space.distance(self.id(), keyId).compareTo(space.distance(known.get(0).id(), keyId)) < 0;
        // Only when the write would succeed: a mismatch takes the full read below, so a copy this node
        // believes current but which a coordinator it did not hear of has since overtaken cannot refuse
        // writers forever.
        if (mine != null && held != null && held.value().version() == mine && stillClosest
                && held.value().liveAt(clock.millis()) && held.value().version() == expected) {
            // This node wrote the latest version itself and nobody closer has appeared since, so its own
            // copy is current: the compare needs no network read. Replicas still refuse anything older.
            List<Contact> holders = new ArrayList<>();
            holders.add(self);
            holders.addAll(known.subList(0, Math.min(replicas - 1, known.size())));
            return decide(key, expected, remove, value, expiresAtMillis, writeId, held.value(), holders);
        }
        return lookup(keyId, Optional.of(key), options.k()).thenCompose(r -> onOwner(() -> {
            if (!r.closest().get(0).id().equals(self.id())) {
                return CompletableFuture.failedFuture(new DhtException(KademliaWire.NOT_COORDINATOR));
            }
            if (r.answered() < othersNeeded()) {
                return CompletableFuture.failedFuture(tooFewReached(key, r.answered()));
            }
            return decide(key, expected, remove, value, expiresAtMillis, writeId, r.best().orElse(null),
                    replicasOf(r.closest()));
        }));
    }

    /** Compare the version the writer read with the current one, and if equal store the write at the holders. */
    private CompletableFuture<Boolean> decide(String key, long expected, boolean remove, byte[] value,
                                              long expiresAtMillis, long writeId, StoredValue current,
                                              List<Contact> holders) {
        int others = (int) holders.stream().filter(h -> !h.id().equals(self.id())).count();
        if (others < othersNeeded()) {
            return CompletableFuture.failedFuture(tooFewReached(key, others));
        }
        long now = clock.millis();
        if (current != null && current.writeId() == writeId) {
            // A retry of a write already applied (its first answer, or a holder's commit, was lost): do not run
            // it twice, but make sure every holder has it before reporting it done.
            return storeAt(key, current, REPAIR, holders).thenApply(ok -> true);
        }
        long currentVersion = current != null && current.liveAt(now) ? current.version() : ABSENT;
        if (currentVersion != expected) {
            return CompletableFuture.completedFuture(false);
        }
        long version = nextVersion(current == null ? 0 : current.version());
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} coordinates {} at {} over {} to {}", self.overlay(), key, version, currentVersion,
                    holders.stream().map(h -> h.overlay().toString()).toList());
        }
        StoredValue stored = remove ? new StoredValue(new byte[0], version, now + TOMBSTONE_MILLIS, true, writeId)
                : new StoredValue(value, version, expiresAtMillis, false, writeId);
        return storeAt(key, stored, current == null ? ABSENT : current.version(), holders).whenComplete((ok, e) -> {
            if (e == null && ok) {
                coordinated.put(key, version);
            } else {
                coordinated.remove(key);
            }
        });
    }

    /**
     * A version never handed out before for this key: above every version
     * seen, and above this coordinator's previous one; derived from wall time
     * in microseconds so a new coordinator starts above an old one's.
     */
    private long nextVersion(long seen) {
        long candidate = Math.max(seen + 1, Math.max(lastVersion + 1, clock.millis() * 1000));
        lastVersion = candidate;
        return candidate;
    }

    /**
     * STOREs {@code value} at {@code holders}. A republish or repair
     * ({@code prev} = {@link #REPAIR}) is one round: each holder takes it if
     * it moves that holder forward. A coordinated write is two: every holder
     * first <em>prepares</em> it — takes it aside, not yet visible, if it
     * holds nothing newer than {@code prev} and has no other write prepared
     * for the key — and only when all have prepared is it committed
     * everywhere; otherwise it is dropped where it was prepared. So a write
     * one holder refuses is never left visible on the others: there its
     * higher version would later outrank, and erase, the newer write the
     * refusing holder had taken. A prepared write that is neither committed
     * nor dropped (its coordinator died) lapses after
     * {@link #preparedHoldMillis()}.
     *
     * <p>Completes with true when every holder took it, false when one
     * refused (it holds or is preparing another version, or it knows a live
     * node closer to the key than this coordinator), and fails when a holder
     * could not be reached — the writer retries.
     */
    private CompletableFuture<Boolean> storeAt(String key, StoredValue value, long prev, List<Contact> holders) {
        if (prev == REPAIR) {
            return round(key, KademliaWire.STORE, storeRequest(key, value, prev), holders,
                    () -> storeLocally(key, value, prev, Optional.empty()))
                    .thenApply(outcome -> outcome == STORE_TAKEN);
        }
        return round(key, KademliaWire.STORE, storeRequest(key, value, prev), holders,
                () -> storeLocally(key, value, prev, Optional.empty())).handle((prepared, error) -> onOwner(() -> {
                    boolean commit = error == null && prepared == STORE_TAKEN;
                    byte[] second = new KademliaWire.Out().contact(self).text(key).num(value.version())
                            .num(value.writeId()).flag(!commit).bytes();
                    CompletableFuture<Integer> done = round(key, KademliaWire.COMMIT, second, holders,
                            () -> settleLocally(key, value.version(), value.writeId(), !commit, false));
                    if (!commit) {
                        // Dropping is best effort: a holder that misses it lets the prepared write lapse.
                        done.exceptionally(e -> STORE_REFUSED_NEWER);
                        if (error != null) {
                            return CompletableFuture.<Boolean>failedFuture(unwrap(error));
                        }
                        return prepared == STORE_REFUSED_NOT_COORDINATOR
                                ? CompletableFuture.<Boolean>failedFuture(new DhtException(KademliaWire.NOT_COORDINATOR))
                                : CompletableFuture.completedFuture(false);
                    }
                    return done.thenApply(outcome -> outcome == STORE_TAKEN);
                })).thenCompose(f -> f);
    }

    private byte[] storeRequest(String key, StoredValue value, long prev) {
        return new KademliaWire.Out().contact(self).text(key).value(Optional.of(value)).num(prev).bytes();
    }

    /**
     * Sends {@code request} to every holder but this node and runs
     * {@code here} for this node when it is one; completes with
     * {@link #STORE_TAKEN} when all took it, else with a refusal
     * ({@link #STORE_REFUSED_NOT_COORDINATOR} first), and fails when a holder
     * did not answer. This node's own part runs first, so a write it refuses
     * goes nowhere.
     */
    private CompletableFuture<Integer> round(String key, int type, byte[] request, List<Contact> holders,
                                             Supplier<Integer> here) {
        boolean includesSelf = holders.stream().anyMatch(h -> h.id().equals(self.id()));
        if (includesSelf) {
            int local = here.get();
            if (local != STORE_TAKEN) {
                return CompletableFuture.completedFuture(local);
            }
        }
        List<CompletableFuture<Integer>> acks = new ArrayList<>();
        for (Contact holder : holders) {
            if (!holder.id().equals(self.id())) {
                acks.add(send(holder, type, request).thenApply(b -> b.length == 1 ? (int) b[0] : STORE_REFUSED_NEWER));
            }
        }
        return CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).thenApply(v -> {
            if (acks.stream().anyMatch(a -> a.join() == STORE_REFUSED_NOT_COORDINATOR)) {
                return STORE_REFUSED_NOT_COORDINATOR;
            }
            return acks.stream().allMatch(a -> a.join() == STORE_TAKEN) ? STORE_TAKEN : STORE_REFUSED_NEWER;
        });
    }

    /** How long a prepared write waits for its commit: the coordinator's round trips and retransmissions. */
    private long preparedHoldMillis() {
        return 4 * options.rpcTimeout().toMillis();
    }

    /**
     * A holder's rule for a STORE. The same version again is taken (a
     * retransmission or a republish). A coordinated write ({@code prev} ≥ 0)
     * is prepared only if this holder holds nothing newer than {@code prev}
     * and has no other write of the key prepared — two coordinators racing
     * on one version cannot both get through a shared holder — and only
     * from the closest live node this holder knows, so a node that has
     * merely lost sight of the real coordinator cannot act as a second one
     * (the closer node is pinged, so a dead one is soon forgotten and the
     * writer's retry gets through). A republish or repair ({@code prev} =
     * {@link #REPAIR}) only moves a holder forward.
     */
    private int storeLocally(String key, StoredValue value, long prev, Optional<Contact> coordinator) {
        Entry held = store.get(key);
        if (held != null && held.value().version() == value.version()) {
            // Two coordinators can hand out the same version in the same millisecond: the write id tells them apart.
            return held.value().writeId() == value.writeId() ? STORE_TAKEN : STORE_REFUSED_NEWER;
        }
        if (prev == REPAIR) {
            if (held != null && held.value().version() > value.version()) {
                return STORE_REFUSED_NEWER;
            }
            keep(key, value, coordinator.isPresent());
            return STORE_TAKEN;
        }
        Prepared pending = preparedFor(key);
        if (pending != null) {
            return sameWrite(pending.value(), value.version(), value.writeId()) ? STORE_TAKEN : STORE_REFUSED_NEWER;
        }
        if (held != null && held.value().version() > prev) {
            return STORE_REFUSED_NEWER;
        }
        if (coordinator.isPresent() && closerThan(space.idOf(key), coordinator.get())) {
            return STORE_REFUSED_NOT_COORDINATOR;
        }
        prepared.put(key, new Prepared(value, tableMillis() + preparedHoldMillis()));
        return STORE_TAKEN;
    }

    /** The write prepared for {@code key} and not yet lapsed, if any. */
    private Prepared preparedFor(String key) {
        Prepared p = prepared.get(key);
        if (p != null && tableMillis() > p.untilMillis()) {
            prepared.remove(key);
            return null;
        }
        return p;
    }

    /**
     * A holder's rule for a COMMIT: make the prepared {@code version}
     * visible, or drop it. A commit of a version already visible is taken (a
     * retransmission); one whose prepared write has lapsed or been replaced
     * is refused, and the coordinator reports the write failed.
     */
    private int settleLocally(String key, long version, long writeId, boolean drop, boolean fromPeer) {
        Prepared pending = preparedFor(key);
        boolean mine = pending != null && sameWrite(pending.value(), version, writeId);
        if (drop) {
            if (mine) {
                prepared.remove(key);
            }
            return STORE_TAKEN;
        }
        Entry held = store.get(key);
        if (held != null && sameWrite(held.value(), version, writeId)) {
            return STORE_TAKEN;
        }
        if (!mine) {
            return STORE_REFUSED_NEWER;
        }
        prepared.remove(key);
        if (held != null && held.value().version() > version) {
            // A repair carried a newer version here while this write waited for its commit.
            return STORE_REFUSED_NEWER;
        }
        keep(key, pending.value(), fromPeer);
        return STORE_TAKEN;
    }

    private static boolean sameWrite(StoredValue v, long version, long writeId) {
        return v.version() == version && v.writeId() == writeId;
    }

    private void keep(String key, StoredValue value, boolean fromPeer) {
        Entry held = store.get(key);
        if (fromPeer && (held == null || held.value().version() != value.version())) {
            // Someone else wrote this key: this node's copy is no longer known to be the latest.
            coordinated.remove(key);
        }
        long stamp = fromPeer ? runtime.nanos().getAsLong() : (held == null ? 0 : held.lastStoredByPeerNanos());
        store.put(key, new Entry(value, stamp));
    }

    /** Whether this node, or a contact not suspected dead, is closer to {@code keyId} than {@code sender}. */
    private boolean closerThan(BigInteger keyId, Contact sender) {
        BigInteger senderDistance = space.distance(sender.id(), keyId);
        if (space.distance(self.id(), keyId).compareTo(senderDistance) < 0) {
            return true;
        }
        long now = tableMillis();
        for (Contact c : table.closest(keyId, 3)) {
            if (space.distance(c.id(), keyId).compareTo(senderDistance) >= 0) {
                return false;
            }
            if (!isSuspected(c.id(), now)) {
                // Check it is alive; a failed ping evicts it at once (§2.2), so the writer's retry gets through.
                transport.request(c.overlay(), KademliaWire.PING, new KademliaWire.Out().contact(self).bytes(),
                        options.rpcTimeout()).whenCompleteAsync((answer, error) -> {
                            if (error != null) {
                                table.remove(c.id());
                                suspect(c);
                            } else {
                                observe(c);
                            }
                        }, this::runOnOwner);
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- lookups

    /**
     * Runs {@link NodeLookup} over the network: FIND_VALUE when {@code key}
     * is given (never stopping at the first copy, so the highest version
     * among the k closest wins), FIND_NODE otherwise. Must be called on the
     * owner thread.
     */
    private CompletableFuture<LookupResult> lookup(BigInteger target, Optional<String> key, int width) {
        NodeLookup lookup = new NodeLookup(space, self.id(), target, width, options.alpha(),
                table.closest(target, options.k()));
        table.touch(space.bucketIndex(self.id(), target), tableMillis());
        CompletableFuture<LookupResult> done = new CompletableFuture<>();
        byte[] request = key.isPresent()
                ? new KademliaWire.Out().contact(self).text(key.get()).bytes()
                : new KademliaWire.Out().contact(self).id(target).bytes();
        int type = key.isPresent() ? KademliaWire.FIND_VALUE : KademliaWire.FIND_NODE;
        pump(lookup, type, request, key, done);
        return done;
    }

    private void pump(NodeLookup lookup, int type, byte[] request, Optional<String> key,
                      CompletableFuture<LookupResult> done) {
        if (done.isDone()) {
            return;
        }
        if (closed.get()) {
            done.completeExceptionally(new IllegalStateException("kademlia node " + self.overlay() + " is closed"));
            return;
        }
        for (Contact peer : lookup.nextQueries()) {
            send(peer, type, request).whenCompleteAsync((answer, error) -> {
                if (error != null) {
                    lookup.onFailure(peer);
                } else {
                    try {
                        KademliaWire.In in = new KademliaWire.In(answer);
                        List<Contact> closer = new ArrayList<>(in.contacts());
                        // Peers that have not noticed a crash yet keep naming the dead node; asking it again
                        // would cost every lookup a full timeout until all of them have learnt.
                        long now = tableMillis();
                        closer.removeIf(c -> isSuspected(c.id(), now));
                        Optional<StoredValue> value = type == KademliaWire.FIND_VALUE ? in.value() : Optional.empty();
                        lookup.onAnswer(peer, closer, value);
                    } catch (RuntimeException malformed) {
                        lookup.onFailure(peer);
                    }
                }
                pump(lookup, type, request, key, done);
            }, this::runOnOwner);
        }
        if (lookup.isDone()) {
            finish(lookup, key, done);
        }
    }

    private void finish(NodeLookup lookup, Optional<String> key, CompletableFuture<LookupResult> done) {
        List<Contact> closest = new ArrayList<>(lookup.closestAnswered());
        closest.add(self);
        closest.sort(NodeLookup.byDistance(space, lookup.target()));
        if (closest.size() > options.k()) {
            closest = new ArrayList<>(closest.subList(0, options.k()));
        }
        Optional<StoredValue> best = lookup.bestValue();
        if (key.isPresent()) {
            Entry mine = store.get(key.get());
            if (mine != null && (best.isEmpty() || mine.value().version() > best.get().version())) {
                best = Optional.of(mine.value());
            }
        }
        lookups.incrementAndGet();
        lookupRounds.addAndGet(lookup.rounds());
        maxLookupRounds.accumulateAndGet(lookup.rounds(), Math::max);
        done.complete(new LookupResult(List.copyOf(closest), best, lookup.rounds(), lookup.closestAnswered().size()));
    }

    /**
     * Sends a request and keeps the routing table honest: an answer counts
     * as having seen the peer, silence removes it (the transport has already
     * retried, so one timeout means several lost datagrams).
     */
    private CompletableFuture<byte[]> send(Contact peer, int type, byte[] payload) {
        return send(peer, type, payload, options.rpcTimeout());
    }

    private CompletableFuture<byte[]> send(Contact peer, int type, byte[] payload, Duration timeout) {
        OverlayTransport t = transport;
        return t.request(peer.overlay(), type, payload, timeout).whenCompleteAsync((answer, error) -> {
            if (error == null) {
                observe(peer);
            } else if (unwrap(error) instanceof OverlayException o
                    && o.reason() != OverlayException.Reason.REMOTE_ERROR) {
                // One timeout may be load, not death (the transport already retried): forget after STRIKES.
                if (strikes.merge(peer.id(), 1, Integer::sum) >= STRIKES) {
                    strikes.remove(peer.id());
                    table.remove(peer.id());
                    suspect(peer);
                }
            }
        }, this::runOnOwner);
    }

    /** §2.2 on every message: move to the tail, insert, or ping the head of a full bucket first. */
    private void observe(Contact seen) {
        if (seen.id().equals(self.id()) || closed.get()) {
            return;
        }
        suspected.remove(seen.id());
        strikes.remove(seen.id());
        if (table.observe(seen, tableMillis()) instanceof RoutingTable.Observation.BucketFull full) {
            Contact head = full.leastRecentlySeen();
            transport.request(head.overlay(), KademliaWire.PING, new KademliaWire.Out().contact(self).bytes(),
                    options.rpcTimeout()).whenCompleteAsync((answer, error) -> {
                        if (error == null) {
                            table.observe(head, tableMillis());
                        } else {
                            table.replace(head, full.newcomer(), tableMillis());
                        }
                    }, this::runOnOwner);
        }
    }

    // ---------------------------------------------------------------- serving peers

    /** Serves one authenticated request; called on a Netty thread, runs on the owner thread. */
    CompletableFuture<byte[]> handle(int type, byte[] payload) {
        return onOwner(() -> {
            KademliaWire.In in = new KademliaWire.In(payload);
            Contact sender = in.contact();
            observe(sender);
            switch (type) {
                case KademliaWire.PING:
                    return CompletableFuture.completedFuture(new KademliaWire.Out().contact(self).bytes());
                case KademliaWire.FIND_NODE: {
                    BigInteger target = in.id();
                    return CompletableFuture.completedFuture(new KademliaWire.Out()
                            .contacts(closestFor(target, sender)).bytes());
                }
                case KademliaWire.FIND_VALUE: {
                    String key = in.text();
                    Entry held = store.get(key);
                    return CompletableFuture.completedFuture(new KademliaWire.Out()
                            .contacts(closestFor(space.idOf(key), sender))
                            .value(Optional.ofNullable(held).map(Entry::value)).bytes());
                }
                case KademliaWire.STORE: {
                    String key = in.text();
                    StoredValue value = in.value().orElseThrow(() -> new IllegalArgumentException("empty STORE"));
                    long prev = in.num();
                    int outcome = storeLocally(key, value, prev, Optional.of(sender));
                    return CompletableFuture.completedFuture(new byte[] {(byte) outcome});
                }
                case KademliaWire.COMMIT: {
                    String key = in.text();
                    long version = in.num();
                    long writeId = in.num();
                    boolean drop = in.flag();
                    return CompletableFuture.completedFuture(new byte[] {(byte) settleLocally(key, version, writeId,
                            drop, true)});
                }
                case KademliaWire.WRITE: {
                    String key = in.text();
                    long expected = in.num();
                    boolean remove = in.flag();
                    byte[] value = in.blob();
                    long expiresAt = in.num();
                    long writeId = in.num();
                    return coordinate(key, expected, remove, value, expiresAt, writeId)
                            .thenApply(ok -> new byte[] {(byte) (ok ? 1 : 0)});
                }
                default:
                    return CompletableFuture.failedFuture(new IllegalArgumentException("unknown kademlia message "
                            + type));
            }
        });
    }

    /** The k closest contacts this node knows, itself included (it may be among them), minus the asker. */
    private List<Contact> closestFor(BigInteger target, Contact asker) {
        List<Contact> known = new ArrayList<>(table.closest(target, options.k() + 1));
        known.add(self);
        known.removeIf(c -> c.id().equals(asker.id()));
        known.sort(NodeLookup.byDistance(space, target));
        return known.size() > options.k() ? known.subList(0, options.k()) : known;
    }

    // ---------------------------------------------------------------- plumbing

    private <T> CompletableFuture<T> onOwner(Supplier<CompletableFuture<T>> work) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(new IllegalStateException("kademlia node " + self.overlay()
                    + " is closed"));
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            owner.execute(() -> {
                try {
                    work.get().whenComplete((v, e) -> {
                        if (e != null) {
                            result.completeExceptionally(unwrap(e));
                        } else {
                            result.complete(v);
                        }
                    });
                } catch (RuntimeException e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new IllegalStateException("kademlia node " + self.overlay()
                    + " is closed"));
        }
        return result;
    }

    private void runOnOwner(Runnable r) {
        try {
            owner.execute(r);
        } catch (RejectedExecutionException e) {
            // Closed: run inline so that lookups in progress see the closed flag and fail instead of hanging.
            r.run();
        }
    }

    /** Routing-table time: only differences matter, and they must not follow the (maybe manual) value clock. */
    /** Whether {@code id} timed out within the last {@link #SUSPECT_MILLIS} and has not been heard from since. */
    private boolean isSuspected(BigInteger id, long now) {
        Suspect s = suspected.get(id);
        if (s == null) {
            return false;
        }
        if (now - s.since() > SUSPECT_MILLIS) {
            suspected.remove(id);
            return false;
        }
        return true;
    }

    private void suspect(Contact c) {
        suspected.put(c.id(), new Suspect(c, tableMillis(), tableMillis()));
    }

    /**
     * How many other nodes this node must reach for a read or a write to
     * count: {@code replicas - 1}, or every other node it knows of when it
     * knows fewer — counting those it suspects but has not yet written off.
     * A node cut off from the rest (a partition, a long pause) would
     * otherwise find only itself, read every key as absent and acknowledge
     * writes that only it holds.
     */
    private int othersNeeded() {
        long now = tableMillis();
        suspected.values().removeIf(s -> now - s.since() > SUSPECT_MILLIS);
        return Math.min(replicas - 1, table.size() + suspected.size());
    }

    /**
     * Probes a few suspected contacts: one that answers is back in the
     * table at once, so nodes separated by a partition or a pause find each
     * other when it ends rather than after the suspicion has run out.
     */
    private void probeSuspects() {
        if (closed.get() || suspected.isEmpty()) {
            return;
        }
        long now = tableMillis();
        suspected.values().removeIf(s -> now - s.since() > SUSPECT_MILLIS);
        List<Suspect> leastProbed = new ArrayList<>(suspected.values());
        leastProbed.sort(java.util.Comparator.comparingLong(Suspect::probedAt));
        for (Suspect s : leastProbed.subList(0, Math.min(options.alpha(), leastProbed.size()))) {
            suspected.put(s.contact().id(), new Suspect(s.contact(), s.since(), now));
            transport.request(s.contact().overlay(), KademliaWire.PING, new KademliaWire.Out().contact(self).bytes(),
                    options.rpcTimeout()).whenCompleteAsync((answer, error) -> {
                        if (error == null) {
                            observe(s.contact());
                        }
                    }, this::runOnOwner);
        }
    }

    private DhtException tooFewReached(String key, int reached) {
        return new DhtException("kademlia node " + self.overlay() + " reached " + reached + " other nodes for "
                + key + "; it needs " + othersNeeded() + " (cut off, or its table is refilling)");
    }

    /** Monotonic milliseconds, for the routing table's and suspicion's ages. */
    private long tableMillis() {
        return runtime.millis();
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    /** Leaves without a word, as a crash would; peers learn it through timeouts. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        OverlayTransport t = transport;
        if (t != null) {
            t.close();
        }
        owner.shutdownNow();
    }

    /** For logs. */
    @Override
    public String toString() {
        return "KademliaDht[" + self.overlay() + " " + space.hex(self.id()).substring(0, 8) + "]";
    }

    Duration rpcTimeout() {
        return options.rpcTimeout();
    }
}
