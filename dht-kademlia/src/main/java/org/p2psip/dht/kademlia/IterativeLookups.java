package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.p2psip.core.dht.DhtException;
import org.p2psip.core.overlay.OverlayRuntime;

/**
 * Runs the pure {@link NodeLookup} (§2.3: α parallel queries, closest
 * first, until the k closest have answered) over the network with
 * {@link KademliaClient}, and counts lookups and their rounds. A FIND_VALUE
 * lookup never stops at the first copy, so the highest version among the k
 * closest wins.
 *
 * <p>Also how many answers make a read or a write count: a key lives on its
 * {@code min(replicas, k)} closest nodes, and a node must hear from
 * {@code replicas - 1} others ({@link ContactHealth#othersNeeded}) before it
 * believes what a lookup found — a node that has just been cut off or paused
 * tries again while its probes refill its table, rather than report a key
 * absent that its holders still have.
 */
final class IterativeLookups {

    /** Pause before a read or a write first retries after a failed attempt, so a settling overlay is not hammered. */
    static final long RETRY_PAUSE_MILLIS = 50;
    /** The longest pause between retries: each failed attempt doubles it up to here. */
    static final long MAX_RETRY_PAUSE_MILLIS = 1_000;
    /** How long a read is reused for the write that follows it. */
    private static final long RECENT_MILLIS = 2_000;
    private static final int RECENT_KEYS = 10_000;

    /**
     * A read of a key this node just made, kept briefly so the write after it
     * skips lookups: the read's result, this node's own copy of the key then
     * (null for none), and when.
     */
    record RecentRead(LookupResult result, StoredValue ownCopy, long atMillis) {

        RecentRead {
            Objects.requireNonNull(result, "result");
        }

        /**
         * Whether this node's copy is still the one the read saw: the same
         * write, or none then and none now. A write this node coordinated
         * since changes it, so the read no longer says what is current.
         */
        boolean ownCopyUnchanged(Optional<StoredValue> now) {
            if (ownCopy == null || now.isEmpty()) {
                return ownCopy == null && now.isEmpty();
            }
            return ownCopy.version() == now.get().version() && ownCopy.writeId() == now.get().writeId();
        }
    }

    private final IdSpace space;
    private final Contact self;
    private final KademliaOptions options;
    private final int replicas;
    private final RoutingTable table;
    private final ContactHealth health;
    private final ReplicaStore store;
    private final KademliaClient client;
    private final OwnerThread owner;
    private final OverlayRuntime runtime;
    private final Map<String, RecentRead> recentReads = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, RecentRead> eldest) {
            return size() > RECENT_KEYS;
        }
    };
    private final AtomicLong lookups = new AtomicLong();
    private final AtomicLong lookupRounds = new AtomicLong();
    private final AtomicLong maxLookupRounds = new AtomicLong();

    IterativeLookups(IdSpace space, Contact self, KademliaOptions options, int replicas, RoutingTable table,
                     ContactHealth health, ReplicaStore store, KademliaClient client, OwnerThread owner,
                     OverlayRuntime runtime) {
        this.space = space;
        this.self = self;
        this.options = options;
        this.replicas = replicas;
        this.table = table;
        this.health = health;
        this.store = store;
        this.client = client;
        this.owner = owner;
        this.runtime = runtime;
    }

    /**
     * Runs {@link NodeLookup} over the network: FIND_VALUE when {@code key}
     * is given (this node's own copy competes with the answers), FIND_NODE
     * otherwise; {@code width} is the lookup's k. A lookup covers its
     * target's bucket, so the bucket counts as refreshed. Must be called on
     * the owner thread.
     */
    CompletableFuture<LookupResult> lookup(BigInteger target, Optional<String> key, int width) {
        return lookup(target, key, width, false);
    }

    /**
     * As {@link #lookup(BigInteger, Optional, int)}; with {@code askSuspects}
     * the contacts that peers name are asked even if this node suspects them.
     * A writer does so after a coordinator said it knows a closer node: that
     * node answers the coordinator, so this node's suspicion of it is stale,
     * and leaving it out would send the writer back to the same coordinator
     * until the suspicion runs out.
     */
    CompletableFuture<LookupResult> lookup(BigInteger target, Optional<String> key, int width, boolean askSuspects) {
        NodeLookup lookup = new NodeLookup(space, self.id(), target, width, options.alpha(),
                table.closest(target, options.k()));
        table.touch(space.bucketIndex(self.id(), target), runtime.millis());
        CompletableFuture<LookupResult> done = new CompletableFuture<>();
        pump(lookup, key, askSuspects, done);
        return done;
    }

    private void pump(NodeLookup lookup, Optional<String> key, boolean askSuspects,
                      CompletableFuture<LookupResult> done) {
        if (done.isDone()) {
            return;
        }
        if (owner.closed()) {
            done.completeExceptionally(owner.closedError());
            return;
        }
        for (Contact peer : lookup.nextQueries()) {
            CompletableFuture<KademliaClient.Closer> query = key.isPresent()
                    ? client.findValue(peer, key.get()) : client.findNode(peer, lookup.target());
            query.whenCompleteAsync((answer, error) -> {
                if (error != null) {
                    lookup.onFailure(peer);
                } else {
                    List<Contact> closer = new ArrayList<>(answer.contacts());
                    // Peers that have not noticed a crash yet keep naming the dead node; asking it again
                    // would cost every lookup a full timeout until all of them have learnt.
                    long now = runtime.millis();
                    if (!askSuspects) {
                        closer.removeIf(c -> health.isSuspected(c.id(), now));
                    }
                    lookup.onAnswer(peer, closer, answer.value());
                }
                pump(lookup, key, askSuspects, done);
            }, owner::run);
        }
        if (lookup.isDone()) {
            finish(lookup, key, done);
        }
    }

    private void finish(NodeLookup lookup, Optional<String> key, CompletableFuture<LookupResult> done) {
        List<Contact> closest = new ArrayList<>(lookup.closestAnswered());
        if (client.announced()) {
            closest.add(self);
        } else if (closest.isEmpty()) {
            // A node holding its share back is no holder, not even its own: with nobody answering it knows none.
            done.completeExceptionally(new DhtException("kademlia node " + self.overlay()
                    + ", still warming up as a client, reached no other node"));
            return;
        }
        closest.sort(NodeLookup.byDistance(space, lookup.target()));
        if (closest.size() > options.k()) {
            closest = new ArrayList<>(closest.subList(0, options.k()));
        }
        Optional<StoredValue> best = lookup.bestValue();
        if (key.isPresent()) {
            Optional<StoredValue> mine = store.get(key.get());
            if (mine.isPresent() && (best.isEmpty() || mine.get().version() > best.get().version())) {
                best = mine;
            }
        }
        lookups.incrementAndGet();
        lookupRounds.addAndGet(lookup.rounds());
        maxLookupRounds.accumulateAndGet(lookup.rounds(), Math::max);
        done.complete(new LookupResult(List.copyOf(closest), best, lookup.rounds(), lookup.closestAnswered().size(),
                lookup.failed()));
    }

    /**
     * A FIND_VALUE lookup that counts only once it has heard from
     * {@link #othersNeeded()} other nodes, retried until {@code deadline}
     * (monotonic nanoseconds). Must be called on the owner thread.
     */
    CompletableFuture<LookupResult> read(String key, long deadline) {
        return read(key, deadline, 0);
    }

    /**
     * The pause before retry number {@code attempt} (0 for the first) of a
     * read or a write: doubling from {@link #RETRY_PAUSE_MILLIS} up to
     * {@link #MAX_RETRY_PAUSE_MILLIS}. When the overlay is slow because it is
     * loaded, retrying at a fixed pace multiplies its load by every operation
     * waiting (congestion collapse); doubling keeps the retries of a stuck
     * operation to a handful per second.
     */
    static long retryPause(int attempt) {
        return attempt >= 5 ? MAX_RETRY_PAUSE_MILLIS : Math.min(MAX_RETRY_PAUSE_MILLIS, RETRY_PAUSE_MILLIS << attempt);
    }

    private CompletableFuture<LookupResult> read(String key, long deadline, int attempt) {
        return lookup(space.idOf(key), Optional.of(key), keyWidth()).thenCompose(r -> owner.call(() -> {
            if (r.answered() >= othersNeeded()) {
                // A read usually precedes a conditional write: remember who the coordinator is and, should
                // that be this node, what the read found.
                recentReads.put(key, new RecentRead(r, store.get(key).orElse(null), runtime.millis()));
                return CompletableFuture.completedFuture(r);
            }
            if (runtime.nanos().getAsLong() > deadline) {
                return CompletableFuture.failedFuture(tooFewReached(key, r.answered()));
            }
            return owner.later(retryPause(attempt), TimeUnit.MILLISECONDS).thenCompose(v -> owner.call(() -> read(key,
                    deadline, attempt + 1)));
        }));
    }

    /**
     * This node's read of {@code key} within the last
     * {@link #RECENT_MILLIS}, unless the closest node it found is suspected
     * since; forgotten once asked for.
     */
    Optional<RecentRead> takeRecent(String key) {
        RecentRead recent = recentReads.remove(key);
        if (recent != null && runtime.millis() - recent.atMillis() < RECENT_MILLIS
                && !health.isSuspected(recent.result().closest().get(0).id(), runtime.millis())) {
            return Optional.of(recent);
        }
        return Optional.empty();
    }

    /**
     * How many nodes closer to {@code target} than {@code distance} a
     * lookup did not hear from: they failed to answer it, or this node
     * suspects them and left them out. Only a coordinator's compare asks, so
     * the suspects are gathered here rather than at every lookup's end.
     */
    long unheardCloser(LookupResult r, BigInteger target, BigInteger distance) {
        Set<BigInteger> unheard = new HashSet<>();
        r.failed().forEach(c -> unheard.add(c.id()));
        health.suspects(runtime.millis()).forEach(c -> unheard.add(c.id()));
        unheard.remove(self.id());
        return unheard.stream().filter(id -> space.distance(id, target).compareTo(distance) < 0).count();
    }

    /** How many other nodes this node must reach for a read or a write to count ({@link ContactHealth}). */
    int othersNeeded() {
        return health.othersNeeded(table.size(), runtime.millis());
    }

    DhtException tooFewReached(String key, int reached) {
        return new DhtException("kademlia node " + self.overlay() + " reached " + reached + " other nodes for "
                + key + "; it needs " + othersNeeded() + " (cut off, or its table is refilling)");
    }

    /**
     * How many of the closest live nodes a key's lookups must hear from —
     * placement, republish, a writer's search for the coordinator, and reads
     * of values (FIND_VALUE, by readers and by the coordinator before a
     * write): twice the replica count (capped by k), enough to find the
     * closest live node, and a holder of every acknowledged write, after
     * {@code replicas} − 1 crashes. A coordinator acknowledges a write only
     * once the {@code replicas} closest nodes it found hold it and it heard
     * from enough of the overlay ({@link #othersNeeded}), so its copies sit
     * among the 2·replicas closest. Routing lookups use the paper's full k.
     * Reading the full k as well cost every REGISTER about thirty messages on
     * a sixteen-node overlay, which saturated the node that carried them.
     */
    int keyWidth() {
        return Math.min(options.k(), Math.max(options.alpha(), 2 * replicas));
    }

    /** The key's replicas among a lookup's closest nodes: the first {@code replicas}. */
    List<Contact> replicasOf(List<Contact> closest) {
        return closest.subList(0, Math.min(replicas, closest.size()));
    }

    KademliaDht.LookupMetrics metrics() {
        long n = lookups.get();
        return new KademliaDht.LookupMetrics(n, n == 0 ? 0 : (double) lookupRounds.get() / n, maxLookupRounds.get());
    }
}
