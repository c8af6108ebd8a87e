package org.p2psip.dht.kademlia;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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
 * lookup in {@code refresh-ms} (§2.3), republishing every stored value every
 * {@code republish-ms} to the key's closest nodes (§2.5) — skipped when
 * another node has re-stored it meanwhile — and probing suspected contacts
 * ({@link ContactHealth}).
 */
final class KademliaMaintenance {

    private static final Logger LOG = LoggerFactory.getLogger(KademliaMaintenance.class);

    private static final int REPUBLISH_IN_FLIGHT = 32;

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

    KademliaMaintenance(IdSpace space, Contact self, KademliaOptions options, RoutingTable table, ContactHealth health,
                        ReplicaStore store, KademliaClient client, IterativeLookups lookups,
                        WriteCoordinator coordinator, OwnerThread owner, OverlayRuntime runtime,
                        SplittableRandom random, HandOverPacing pacing) {
        this.pacing = pacing;
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

    /** Schedules republishing, bucket refresh and probing of suspects on the owner thread. */
    void start() {
        long republish = options.republishEvery().toMillis();
        long refresh = options.refreshEvery().toMillis();
        owner.every(republish, republish, this::republishAndExpire);
        owner.every(refresh, Math.max(1, refresh / 4), () -> {
            if (!owner.closed()) {
                refreshBuckets(refresh);
            }
        });
        long probe = options.rpcTimeout().toMillis();
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
     * §2.5, with a short interval: every value this node holds is stored
     * again at the key's closest nodes, unless a peer re-stored it here
     * within the interval (then that peer republished it already). Expired
     * entries are dropped once their grace period is over.
     */
    private void republishAndExpire() {
        if (owner.closed()) {
            return;
        }
        long now = clock.millis();
        long interval = TimeUnit.MILLISECONDS.toNanos(options.republishEvery().toMillis());
        store.purgeExpired(now);
        republishSome(store.dueForRepublish(now, runtime.nanos().getAsLong(), interval), 0);
    }

    /**
     * Republishes {@link #REPUBLISH_IN_FLIGHT} keys at a time, so a large
     * store does not flood the overlay, and pauses between batches while
     * this node lags ({@link HandOverPacing}), so that a joiner's first
     * republish, or one during a join, cannot starve the foreground.
     */
    private void republishSome(List<String> keys, int from) {
        if (from >= keys.size() || owner.closed()) {
            return;
        }
        int to = Math.min(keys.size(), from + REPUBLISH_IN_FLIGHT);
        List<CompletableFuture<?>> batch = new ArrayList<>();
        for (String key : keys.subList(from, to)) {
            Optional<StoredValue> held = store.get(key);
            if (held.isEmpty()) {
                continue;
            }
            batch.add(lookups.lookup(space.idOf(key), Optional.empty(), lookups.keyWidth())
                    .thenCompose(r -> owner.call(() -> coordinator.storeAt(key, held.get(), ReplicaStore.REPAIR,
                            lookups.replicasOf(r.closest())))));
        }
        CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new))
                .handle((v, err) -> null)
                .thenCompose(v -> owner.later(pacing.pauseAt(runtime.nanos().getAsLong()).toNanos(),
                        TimeUnit.NANOSECONDS))
                .whenCompleteAsync((v, err) -> {
                    if (err == null) {
                        republishSome(keys, to);
                    }
                }, owner.executor());
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
