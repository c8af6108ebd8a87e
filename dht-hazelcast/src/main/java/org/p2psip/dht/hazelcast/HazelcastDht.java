package org.p2psip.dht.hazelcast;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import com.hazelcast.cluster.Address;
import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.flakeidgen.FlakeIdGenerator;
import com.hazelcast.instance.EndpointQualifier;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import com.hazelcast.internal.partition.IPartition;
import com.hazelcast.internal.partition.IPartitionService;
import com.hazelcast.map.IMap;
import com.hazelcast.partition.Partition;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtException;
import org.p2psip.core.dht.KeyPlacement;
import org.p2psip.core.dht.KeyRangeSet;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.Placement;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.store.HeldValue;
import org.p2psip.core.store.WriteBehindValues;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's handle on the Hazelcast-backed DHT, as an embedded member or as a
 * client of a cluster. It keeps the SPI's promises this way:
 *
 * <ul>
 *   <li><b>No lost updates.</b> {@link #putIfVersion} and {@link #removeIfVersion}
 *       are entry processors ({@link PutIfVersion}, {@link RemoveIfVersion}) that
 *       Hazelcast runs on the key's owner, where the version check and the write
 *       are one step on the partition's thread; nothing reads, decides and then
 *       blindly writes from the calling node.</li>
 *   <li><b>Versions are never reused for a key.</b> Each write's version comes from a
 *       Hazelcast {@link FlakeIdGenerator}: 63-bit, positive, unique across the
 *       cluster for its lifetime without any coordination per id (timestamp,
 *       per-member sequence and a member id assigned at join). Because the id is
 *       unique for the whole cluster and not only larger than the key's last
 *       version, a key that is removed or expires and is written again can never
 *       get back a version some caller still holds, which is the ABA case a
 *       "previous + 1" counter cannot cover once the previous value is gone. A
 *       timestamp-plus-random scheme would only make that unlikely.</li>
 *   <li><b>Expired values are never returned.</b> Liveness is decided from the
 *       stored expiry against this node's injected {@link Clock}: by {@link #get} on
 *       the answer, and by the entry processors with a "now" the caller samples and
 *       ships with them. Hazelcast's TTL only reclaims memory.</li>
 *   <li><b>Replication.</b> The map keeps {@code replicas - 1} synchronous backups, so
 *       an acknowledged write is on that many other members before its future
 *       completes; reads go to the owner only.</li>
 *   <li><b>Asynchronous.</b> Every call returns at once; Hazelcast's completions are
 *       handed to a small executor of this node's, so a caller's continuation never
 *       runs on (and never stalls) a Hazelcast partition or I/O thread.</li>
 * </ul>
 */
public final class HazelcastDht implements Dht {

    private static final Logger LOG = LoggerFactory.getLogger(HazelcastDht.class);

    /** The member attribute that carries the SIP address of the front node beside the member. */
    static final String SIP_ATTRIBUTE = "p2psip.sip";
    private static final long STORED_COUNT_MAX_AGE_NANOS = 1_000_000_000L;
    /** How long, in all, placement waits for a freshly started member's partition table. */
    private static final int OWNER_WAIT_ATTEMPTS = 20;
    private static final long OWNER_WAIT_MILLIS = 50;
    static final String MAP_NAME = "p2psip-dht";
    private static final long OWNED_MAX_AGE_MILLIS = 500;
    /** Values put back after a restart at once at most: enough to keep every partition thread busy. */
    private static final int RESTORES_IN_FLIGHT = 256;

    private record OwnedSlices(KeyRangeSet slices, long atNanos) {
    }

    static final String VERSIONS_NAME = "p2psip-dht-versions";

    private final HazelcastInstance hazelcast;
    private final IMap<PlacedKey, StoredValue> map;
    private final PartitionSegments segments;
    private final FlakeIdGenerator versions;
    private final Clock clock;
    private final Peer self;
    /** Present on an embedded member, which can see the full partition table; clients see owners only. */
    private final Optional<IPartitionService> partitionTable;
    private final int backupCount;
    private final ExecutorService callbacks;
    private volatile boolean closed;
    /** The data directory this member's owned entries are kept in, once {@link #keepOnDisk} named one. */
    private volatile WriteBehindValues disk;
    private volatile OwnedSlices ownedSlices;
    /** The member's owned and backup entry count, and when it was read: map statistics are too dear per request. */
    private volatile long storedCount = -1;
    private volatile long storedCountAt = System.nanoTime() - 2 * STORED_COUNT_MAX_AGE_NANOS;

    HazelcastDht(HazelcastInstance hazelcast, Clock clock, Peer self, int backupCount) {
        this.hazelcast = Objects.requireNonNull(hazelcast, "hazelcast");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.self = Objects.requireNonNull(self, "self");
        this.backupCount = backupCount;
        this.map = hazelcast.getMap(MAP_NAME);
        var partitions = hazelcast.getPartitionService();
        this.segments = new PartitionSegments(partitions.getPartitions().size(),
                i -> partitions.getPartition(i).getPartitionId());
        this.versions = hazelcast.getFlakeIdGenerator(VERSIONS_NAME);
        this.partitionTable = hazelcast instanceof HazelcastInstanceProxy proxy
                ? Optional.of(proxy.getOriginal().node.getPartitionService())
                : Optional.empty();
        this.callbacks = callbackExecutor(self.id());
    }

    @Override
    public String backendName() {
        return HazelcastDhtProvider.NAME;
    }

    @Override
    public Peer self() {
        return self;
    }

    /** The Hazelcast instance underneath, for tests and operators' tooling. */
    public HazelcastInstance hazelcast() {
        return hazelcast;
    }

    /** Whether this node embeds a member (rather than being a client of a cluster). */
    public boolean isMember() {
        return partitionTable.isPresent();
    }

    @Override
    public CompletableFuture<Optional<VersionedValue>> get(String key) {
        Objects.requireNonNull(key, "key");
        if (closed) {
            return closedFailure();
        }
        return relay("get", key, map.getAsync(placed(key)), stored ->
                // Sampled on completion, not on the call: a value that lapses while the
                // read is in flight is not returned either.
                stored != null && stored.liveAt(clock.millis())
                        ? Optional.of(stored.toVersionedValue())
                        : Optional.empty());
    }

    @Override
    public CompletableFuture<Boolean> putIfVersion(String key, long expectedVersion, byte[] value, Instant expiresAt) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(expiresAt, "expiresAt");
        if (closed) {
            return closedFailure();
        }
        // Copied now: a local owner runs the processor without serialising it first,
        // so the caller's array could otherwise change under it.
        byte[] copy = value.clone();
        long now = clock.millis();
        long expiresAtMillis = expiresAt.toEpochMilli();
        if (isMember()) {
            // On a member, ids come from a local batch and never wait on the network.
            PutIfVersion write = new PutIfVersion(expectedVersion, copy, expiresAtMillis, now, versions.newId());
            return relay("put", key, map.submitToKey(placed(key), write), Boolean.TRUE::equals);
        }
        // A client fetches id batches from a member, which blocks; keep that off the caller's thread.
        return CompletableFuture.supplyAsync(versions::newId, callbacks)
                .thenCompose(version -> relay("put", key,
                        map.submitToKey(placed(key), new PutIfVersion(expectedVersion, copy, expiresAtMillis, now, version)),
                        Boolean.TRUE::equals));
    }

    @Override
    public CompletableFuture<Boolean> removeIfVersion(String key, long expectedVersion) {
        Objects.requireNonNull(key, "key");
        if (closed) {
            return closedFailure();
        }
        return relay("remove", key, map.submitToKey(placed(key), new RemoveIfVersion(expectedVersion, clock.millis())),
                Boolean.TRUE::equals);
    }

    /**
     * What this member holds, owned and backups, read from its local map
     * statistics at most once a second; -1 on a client, which holds nothing.
     */
    @Override
    public long storedEntries() {
        if (closed) {
            return -1;
        }
        long now = System.nanoTime();
        if (now - storedCountAt > STORED_COUNT_MAX_AGE_NANOS) {
            storedCountAt = now;
            try {
                var stats = map.getLocalMapStats();
                storedCount = stats.getOwnedEntryCount() + stats.getBackupEntryCount();
            } catch (UnsupportedOperationException e) {
                // A client's proxy has no local statistics: it holds nothing.
                storedCount = -1;
            }
        }
        return storedCount;
    }

    /**
     * Every other member of the cluster, from the member list Hazelcast
     * keeps on each member and client; none once closed.
     */
    @Override
    public List<Peer> knownPeers() {
        if (closed) {
            return List.of();
        }
        try {
            return hazelcast.getCluster().getMembers().stream().filter(m -> !m.localMember())
                    .map(HazelcastDht::peerOf).toList();
        } catch (RuntimeException e) {
            // Shutting down under us: it knows nobody now.
            return List.of();
        }
    }

    @Override
    public CompletableFuture<Placement> placement(String key) {
        Objects.requireNonNull(key, "key");
        if (closed) {
            return closedFailure();
        }
        return placement(key, OWNER_WAIT_ATTEMPTS);
    }

    /**
     * The partition table is replicated to every member and client, so this
     * is a local lookup and completes at once — except on a member that has
     * just started, whose table the master arranges on first use: then it
     * asks again a little later, for up to a second.
     */
    private CompletableFuture<Placement> placement(String key, int attemptsLeft) {
        try {
            Partition partition = hazelcast.getPartitionService().getPartition(placed(key));
            Member owner = partition.getOwner();
            if (owner == null) {
                if (attemptsLeft <= 1 || closed) {
                    return CompletableFuture.failedFuture(
                            new DhtException("hazelcast has not assigned an owner to the partition of " + key + " yet"));
                }
                return CompletableFuture.supplyAsync(() -> null,
                                CompletableFuture.delayedExecutor(OWNER_WAIT_MILLIS, TimeUnit.MILLISECONDS))
                        .thenCompose(x -> placement(key, attemptsLeft - 1));
            }
            return CompletableFuture.completedFuture(
                    new Placement(peerOf(owner), backupsOf(partition.getPartitionId(), owner)));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(failure("placement", key, e));
        }
    }

    /**
     * The members holding backups of a partition, in backup order. Hazelcast's
     * public API names only a partition's owner; the backups are read from the
     * member's internal partition table, which is why a client reports none.
     */
    private List<Peer> backupsOf(int partitionId, Member owner) {
        if (partitionTable.isEmpty()) {
            return List.of();
        }
        Map<Address, Member> members = new HashMap<>();
        for (Member m : hazelcast.getCluster().getMembers()) {
            members.put(m.getAddress(), m);
        }
        IPartition partition = partitionTable.get().getPartition(partitionId);
        List<Peer> backups = new ArrayList<>();
        for (int replica = 1; replica <= backupCount; replica++) {
            Address address = partition.getReplicaAddress(replica);
            Member member = address == null ? null : members.get(address);
            if (member != null && !member.getUuid().equals(owner.getUuid())) {
                backups.add(peerOf(member));
            }
        }
        return backups;
    }

    /** {@code key} as the map stores it: placed in the partition whose slice holds its point. */
    PlacedKey placed(String key) {
        return new PlacedKey(key, segments.representative(segments.partitionOf(KeyPlacement.point(key))));
    }

    /**
     * The slices of the partitions this member owns, worked out from the
     * replicated partition table at most every {@value #OWNED_MAX_AGE_MILLIS}
     * ms; none on a client, which holds nothing.
     */
    @Override
    public Optional<KeyRangeSet> ownedRanges() {
        if (!isMember() || closed) {
            return Optional.of(KeyRangeSet.NONE);
        }
        long now = System.nanoTime();
        OwnedSlices last = ownedSlices;
        if (last == null || now - last.atNanos() > TimeUnit.MILLISECONDS.toNanos(OWNED_MAX_AGE_MILLIS)) {
            List<Integer> mine = new ArrayList<>();
            try {
                for (Partition p : hazelcast.getPartitionService().getPartitions()) {
                    Member owner = p.getOwner();
                    if (owner != null && owner.localMember()) {
                        mine.add(p.getPartitionId());
                    }
                }
            } catch (RuntimeException e) {
                // Shutting down under us: it owns nothing now.
                return Optional.of(KeyRangeSet.NONE);
            }
            last = new OwnedSlices(segments.slices(mine), now);
            ownedSlices = last;
        }
        return Optional.of(last.slices());
    }

    /** A member as placement reports it: its overlay address as id, its front node's SIP address if it said. */
    static Peer peerOf(Member member) {
        // A client sees members by the addresses it reaches them at (their client ports); a member
        // is named by its overlay address wherever it is seen, so members and clients agree.
        Address address = member.getAddressMap().getOrDefault(EndpointQualifier.MEMBER, member.getAddress());
        String id = new HostPort(address.getHost(), address.getPort()).toString();
        String sip = member.getAttribute(SIP_ATTRIBUTE);
        Optional<HostPort> sipAddress = Optional.empty();
        if (sip != null) {
            try {
                sipAddress = Optional.of(HostPort.parse(sip));
            } catch (IllegalArgumentException e) {
                // A member of a foreign or newer deployment; its placement is still useful without SIP.
            }
        }
        return new Peer(id, sipAddress);
    }

    /**
     * Keeps every entry this member owns in {@code dir} from now on, and puts
     * back what {@code dir} kept from before (values newer than what the
     * grid holds, {@link RestoreIfNewer}), at most {@value #RESTORES_IN_FLIGHT}
     * at a time. Completes once every kept value was offered; closing this
     * node closes {@code dir}.
     */
    CompletableFuture<Void> keepOnDisk(WriteBehindValues dir) {
        if (!isMember()) {
            throw new DhtException("a hazelcast client holds no entries to keep in a data directory");
        }
        this.disk = dir;
        map.addLocalEntryListener(new HeldEntries(dir));
        List<HeldValue> kept = dir.recovered();
        if (kept.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        Semaphore slots = new Semaphore(RESTORES_IN_FLIGHT);
        List<CompletableFuture<Boolean>> offered = new ArrayList<>(kept.size());
        long now = clock.millis();
        for (HeldValue v : kept) {
            slots.acquireUninterruptibly();
            CompletableFuture<Boolean> one = relay("restore", v.key(), map.submitToKey(placed(v.key()),
                    new RestoreIfNewer(v.value(), v.version(), v.expiresAtMillis(), now)), Boolean.TRUE::equals);
            one.whenComplete((r, e) -> slots.release());
            offered.add(one);
        }
        return CompletableFuture.allOf(offered.toArray(CompletableFuture[]::new)).thenRun(() -> {
            long restored = offered.stream().filter(f -> f.join()).count();
            LOG.info("hazelcast member {} put back {} of the {} values its data directory kept (the others were "
                    + "newer in the grid already)", self.id(), restored, kept.size());
        });
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        // A member leaves gracefully: it hands its partitions over before it goes,
        // so closing a node never costs a backup. Pending calls fail with
        // Hazelcast's not-active error, delivered through the callback executor.
        try {
            hazelcast.shutdown();
        } finally {
            callbacks.shutdown();
            if (disk != null) {
                disk.close();
            }
        }
    }

    private <T, R> CompletableFuture<R> relay(String operation, String key, CompletionStage<T> stage,
                                              Function<T, R> onSuccess) {
        CompletableFuture<R> result = new CompletableFuture<>();
        stage.whenCompleteAsync((value, error) -> {
            if (error != null) {
                result.completeExceptionally(failure(operation, key, error));
                return;
            }
            try {
                result.complete(onSuccess.apply(value));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        }, callbacks);
        return result;
    }

    private static DhtException failure(String operation, String key, Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof DhtException dhtException) {
            return dhtException;
        }
        return new DhtException("hazelcast " + operation + " of " + key + " failed: " + cause, cause);
    }

    private static <T> CompletableFuture<T> closedFailure() {
        return CompletableFuture.failedFuture(new IllegalStateException("this hazelcast DHT node is closed"));
    }

    /**
     * A few daemon threads for completions. Once shut down it runs a late
     * completion on the completing thread rather than dropping it, so no
     * caller's future is left pending by {@link #close()}.
     */
    private static ExecutorService callbackExecutor(String nodeId) {
        int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
        AtomicInteger count = new AtomicInteger();
        ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), task -> {
                    Thread t = new Thread(task, "p2psip-hz-" + nodeId + "-" + count.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                }, (task, rejectedBy) -> task.run());
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }
}
