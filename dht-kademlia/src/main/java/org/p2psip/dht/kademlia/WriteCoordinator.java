package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtException;
import org.p2psip.core.overlay.OverlayRuntime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Conditional writes without lost updates, both sides of them.
 *
 * <p>The rule. Conditional writes are not blind STOREs: they go to the
 * key's <em>coordinator</em>, the closest live node to the key as a lookup
 * finds it. The coordinator serialises writes per key, reads the highest
 * version among the k closest nodes (FIND_VALUE), compares it with the
 * version the writer read, gives the write a fresh higher version and
 * stores it at the replicas in two rounds: every holder first prepares it,
 * and only when all have is it committed everywhere; otherwise it is dropped
 * where it was prepared ({@link ReplicaStore} is the holder's side). It
 * acknowledges only once all of them hold it. A holder takes a coordinated
 * write only from the closest live node it knows ({@link KademliaServer}),
 * so a node that has merely lost sight of the coordinator cannot act as a
 * second one through a shared replica. When the coordinator dies the writer
 * falls back to the next closest node, which becomes coordinator by the same
 * rule; a write retried after a lost answer is recognised by its write id.
 * Chosen over a mergeable value because the SPI is byte-level
 * compare-and-set: the coordinator gives it exactly that. The remaining gap:
 * two coordinators whose replica sets do not overlap (views differing by two
 * or more nodes, e.g. in a partition) can each commit.
 */
final class WriteCoordinator {

    private static final Logger LOG = LoggerFactory.getLogger(WriteCoordinator.class);
    /** How long a removal's tombstone outlives the write, so lagging replicas cannot resurrect the value. */
    private static final long TOMBSTONE_MILLIS = 10 * 60_000;
    /** Upper bound of the random pause after a lost compare-and-set. */
    private static final long CONFLICT_PAUSE_MICROS = 20_000;

    private final IdSpace space;
    private final Contact self;
    private final KademliaOptions options;
    private final int replicas;
    private final RoutingTable table;
    private final ReplicaStore store;
    private final KademliaClient client;
    private final IterativeLookups lookups;
    private final LocalAuthority authority;
    private final OwnerThread owner;
    private final OverlayRuntime runtime;
    private final Clock clock;
    private final SplittableRandom random;
    private final Map<String, CompletableFuture<?>> writeQueues = new HashMap<>();
    private long lastVersion;

    WriteCoordinator(IdSpace space, Contact self, KademliaOptions options, int replicas, RoutingTable table,
                     ReplicaStore store, KademliaClient client, IterativeLookups lookups, LocalAuthority authority,
                     OwnerThread owner, OverlayRuntime runtime, SplittableRandom random) {
        this.space = space;
        this.self = self;
        this.options = options;
        this.replicas = replicas;
        this.table = table;
        this.store = store;
        this.client = client;
        this.lookups = lookups;
        this.authority = authority;
        this.owner = owner;
        this.runtime = runtime;
        this.clock = runtime.clock();
        this.random = random;
    }

    /**
     * The writer's side: find the coordinator (the closest live node) and
     * ask it; when it is dead, forget it and ask the next closest; when it
     * names a closer node, look up again. Retried until the operation timeout.
     */
    CompletableFuture<Boolean> write(String key, long expected, boolean remove, byte[] value, long expiresAtMillis) {
        return owner.call(() -> {
            long deadline = runtime.nanos().getAsLong() + options.operationTimeout().toNanos();
            long writeId = random.nextLong();
            return attemptWrite(key, expected, remove, value, expiresAtMillis, writeId, deadline, null, 0)
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
        return owner.call(() -> owner.later(random.nextLong(CONFLICT_PAUSE_MICROS), TimeUnit.MICROSECONDS))
                .thenApply(v -> false);
    }

    private CompletableFuture<Boolean> attemptWrite(String key, long expected, boolean remove, byte[] value,
                                                    long expiresAtMillis, long writeId, long deadline,
                                                    Throwable last, int attempt) {
        if (runtime.nanos().getAsLong() > deadline) {
            return CompletableFuture.failedFuture(new DhtException("write of " + key + " found no coordinator within "
                    + options.operationTimeout().toMillis() + " ms" + (last == null ? "" : ": " + last.getMessage())));
        }
        Optional<IterativeLookups.RecentRead> recent = last == null ? lookups.takeRecent(key) : Optional.empty();
        if (last == null && recent.isEmpty() && authority.answersFor(key)) {
            // This node is the coordinator by its own settled view: no lookup to find one. A holder that knows
            // a closer node refuses, and the retry looks the coordinator up.
            return coordinate(key, expected, remove, value, expiresAtMillis, writeId, Optional.empty())
                    .exceptionallyCompose(e -> owner.call(() -> retryWrite(key, expected, remove, value,
                            expiresAtMillis, writeId, deadline, OwnerThread.unwrap(e), attempt, self)));
        }
        CompletableFuture<LookupResult> where = recent.isPresent()
                ? CompletableFuture.completedFuture(recent.get().result())
                : lookups.lookup(space.idOf(key), Optional.empty(), lookups.keyWidth(), notCoordinator(last));
        return where.thenCompose(r -> owner.call(() -> {
            Contact coordinator = r.closest().get(0);
            CompletableFuture<Boolean> answer = coordinator.id().equals(self.id())
                    ? coordinate(key, expected, remove, value, expiresAtMillis, writeId, recent)
                    : client.write(coordinator, key, expected, remove, value, expiresAtMillis, writeId);
            return answer.exceptionallyCompose(e -> owner.call(() -> retryWrite(key, expected, remove, value,
                    expiresAtMillis, writeId, deadline, OwnerThread.unwrap(e), attempt, coordinator)));
        }));
    }

    /** After a failed attempt through {@code coordinator}: the next one, after a pause, unless the node closed. */
    private CompletableFuture<Boolean> retryWrite(String key, long expected, boolean remove, byte[] value,
                                                  long expiresAtMillis, long writeId, long deadline, Throwable cause,
                                                  int attempt, Contact coordinator) {
        if (cause instanceof IllegalStateException && owner.closed()) {
            return CompletableFuture.failedFuture(cause);
        }
        LOG.debug("write of {} via coordinator {} failed, retrying: {}", key, coordinator.overlay(), cause.toString());
        return owner.later(IterativeLookups.retryPause(attempt), TimeUnit.MILLISECONDS).thenCompose(v ->
                owner.call(() -> attemptWrite(key, expected, remove, value, expiresAtMillis, writeId, deadline,
                        cause, attempt + 1)));
    }

    /** Whether a write attempt failed because its coordinator, or one of its holders, knows a closer node. */
    private static boolean notCoordinator(Throwable last) {
        return last != null && KademliaWire.NOT_COORDINATOR.equals(last.getMessage());
    }

    /** The coordinator's side of a conditional write: serialised per key on the owner thread. */
    CompletableFuture<Boolean> coordinate(String key, long expected, boolean remove, byte[] value,
                                          long expiresAtMillis, long writeId) {
        return coordinate(key, expected, remove, value, expiresAtMillis, writeId, Optional.empty());
    }

    /**
     * As {@link #coordinate(String, long, boolean, byte[], long, long)}, for
     * a write this node was asked for itself right after reading the key:
     * that read already asked the key's closest nodes for their copies, so
     * the compare may rest on it instead of a second FIND_VALUE lookup.
     */
    private CompletableFuture<Boolean> coordinate(String key, long expected, boolean remove, byte[] value,
                                                  long expiresAtMillis, long writeId,
                                                  Optional<IterativeLookups.RecentRead> read) {
        CompletableFuture<?> previous = writeQueues.getOrDefault(key, CompletableFuture.completedFuture(null));
        CompletableFuture<Boolean> result = previous.handleAsync((v, e) -> null, owner.executor())
                .thenCompose(ignored -> coordinateNow(key, expected, remove, value, expiresAtMillis, writeId, read));
        CompletableFuture<?> tail = result.handle((v, e) -> null);
        writeQueues.put(key, tail);
        tail.whenCompleteAsync((v, e) -> writeQueues.remove(key, tail), owner.executor());
        return result;
    }

    private CompletableFuture<Boolean> coordinateNow(String key, long expected, boolean remove, byte[] value,
                                                     long expiresAtMillis, long writeId,
                                                     Optional<IterativeLookups.RecentRead> read) {
        BigInteger keyId = space.idOf(key);
        List<Contact> known = table.closest(keyId, replicas);
        List<Contact> others = known.subList(0, Math.min(replicas - 1, known.size()));
        Optional<StoredValue> mine = store.coordinatedHere(key, ids(others));
        boolean stillClosest = known.isEmpty()
                || space.distance(self.id(), keyId).compareTo(space.distance(known.get(0).id(), keyId)) < 0;
        // Only when the write would succeed: a mismatch takes the full read below, so a copy this node
        // believes current but which a coordinator it did not hear of has since overtaken cannot refuse
        // writers forever.
        if (mine.isPresent() && stillClosest && mine.get().liveAt(clock.millis()) && mine.get().version() == expected) {
            // This node wrote the latest version itself, nobody closer has appeared since and the holders it
            // wrote to are still the ones it would choose, so its own copy is current: the compare needs no
            // network read. Replicas still refuse anything older.
            List<Contact> holders = new ArrayList<>();
            holders.add(self);
            holders.addAll(others);
            return decide(key, expected, remove, value, expiresAtMillis, writeId, mine.get(), holders);
        }
        Optional<StoredValue> held = store.get(key);
        long heldVersion = held.filter(v -> v.liveAt(clock.millis())).map(StoredValue::version).orElse(Dht.ABSENT);
        if (read.isEmpty() && stillClosest && heldVersion == expected && authority.answersFor(key)) {
            // This node coordinated every write to the key since the membership settled, so its own copy, or
            // its lack of one, is current (LocalAuthority); as above, only a write that would succeed is
            // decided on it, and the other holders still refuse one that replaces a version they do not hold.
            List<Contact> holders = new ArrayList<>();
            holders.add(self);
            holders.addAll(others);
            return decide(key, expected, remove, value, expiresAtMillis, writeId, held.orElse(null), holders);
        }
        if (read.isPresent() && stillClosest && read.get().ownCopyUnchanged(store.get(key))
                && otherHolders(read.get().result()).equals(ids(others))) {
            // The writer's read, a moment ago, asked the same closest nodes for their copies, the holders it
            // found are still the ones this node would choose, and no write this node coordinated has changed
            // the key since. A write another coordinator slipped in meanwhile is still refused: every holder
            // compares the version it holds with the one this write replaces.
            return decideOn(key, expected, remove, value, expiresAtMillis, writeId, read.get().result());
        }
        return lookups.lookup(keyId, Optional.of(key), lookups.keyWidth()).thenCompose(r -> owner.call(() ->
                decideOn(key, expected, remove, value, expiresAtMillis, writeId, r)));
    }

    /** The compare, on what a FIND_VALUE lookup {@code r} of the key found, once it is certain to be complete. */
    private CompletableFuture<Boolean> decideOn(String key, long expected, boolean remove, byte[] value,
                                                long expiresAtMillis, long writeId, LookupResult r) {
        BigInteger keyId = space.idOf(key);
        if (!r.closest().get(0).id().equals(self.id())) {
            LOG.debug("not coordinating {}: {} is closer", key, r.closest().get(0).overlay());
            return CompletableFuture.failedFuture(new DhtException(KademliaWire.NOT_COORDINATOR));
        }
        if (r.answered() < lookups.othersNeeded()) {
            return CompletableFuture.failedFuture(lookups.tooFewReached(key, r.answered()));
        }
        List<Contact> holders = lookups.replicasOf(r.closest());
        long unheard = lookups.unheardCloser(r, keyId, space.distance(holders.get(holders.size() - 1).id(), keyId));
        if (unheard >= replicas) {
            // As many nodes as a write's holders, closer than this one's would be, went unheard: the last
            // write may sit on exactly those (another coordinator's, while this node could not reach them).
            LOG.debug("not coordinating {} yet: {} closer nodes unheard", key, unheard);
            return CompletableFuture.failedFuture(new DhtException("kademlia node " + self.overlay() + " did not"
                    + " hear from " + unheard + " nodes closer to " + key + " than its holders"));
        }
        return decide(key, expected, remove, value, expiresAtMillis, writeId, r.best().orElse(null), holders);
    }

    /** Compare the version the writer read with the current one, and if equal store the write at the holders. */
    private CompletableFuture<Boolean> decide(String key, long expected, boolean remove, byte[] value,
                                              long expiresAtMillis, long writeId, StoredValue current,
                                              List<Contact> holders) {
        int others = (int) holders.stream().filter(h -> !h.id().equals(self.id())).count();
        if (others < lookups.othersNeeded()) {
            return CompletableFuture.failedFuture(lookups.tooFewReached(key, others));
        }
        long now = clock.millis();
        if (current != null && current.writeId() == writeId) {
            // A retry of a write already applied (its first answer, or a holder's commit, was lost): do not run
            // it twice, but make sure every holder has it before reporting it done.
            return storeAt(key, current, ReplicaStore.REPAIR, holders).thenApply(ok -> true);
        }
        long currentVersion = current != null && current.liveAt(now) ? current.version() : Dht.ABSENT;
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
        return storeAt(key, stored, current == null ? Dht.ABSENT : current.version(), holders).whenComplete((ok, e) -> {
            if (e == null && ok) {
                store.markCoordinated(key, version,
                        ids(holders.stream().filter(h -> !h.id().equals(self.id())).toList()));
                authority.trust(key);
            } else {
                store.forgetCoordinated(key);
                authority.distrust(key);
            }
        });
    }

    private List<BigInteger> otherHolders(LookupResult r) {
        return ids(lookups.replicasOf(r.closest()).stream().filter(h -> !h.id().equals(self.id())).toList());
    }

    private static List<BigInteger> ids(List<Contact> contacts) {
        return contacts.stream().map(Contact::id).toList();
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
     * ({@code prev} = {@link ReplicaStore#REPAIR}) is one round: each holder
     * takes it if it moves that holder forward. A coordinated write is two:
     * every holder first prepares it, and only when all have prepared is it
     * committed everywhere; otherwise it is dropped where it was prepared.
     * So a write one holder refuses is never left visible on the others:
     * there its higher version would later outrank, and erase, the newer
     * write the refusing holder had taken.
     *
     * <p>Completes with true when every holder took it, false when one
     * refused (it holds or is preparing another version, or it knows a live
     * node closer to the key than this coordinator), and fails when a holder
     * could not be reached — the writer retries.
     */
    CompletableFuture<Boolean> storeAt(String key, StoredValue value, long prev, List<Contact> holders) {
        if (prev == ReplicaStore.REPAIR) {
            return round(holders, () -> storeHere(key, value, prev), h -> client.store(h, key, value, prev))
                    .thenApply(outcome -> outcome == StoreOutcome.TAKEN);
        }
        return round(holders, () -> storeHere(key, value, prev), h -> client.store(h, key, value, prev))
                .handle((prepared, error) -> owner.call(() -> {
                    boolean commit = error == null && prepared == StoreOutcome.TAKEN;
                    CompletableFuture<StoreOutcome> done = round(holders,
                            () -> store.settle(key, value.version(), value.writeId(), !commit, false,
                                    runtime.nanos().getAsLong()),
                            h -> client.commit(h, key, value.version(), value.writeId(), !commit));
                    if (!commit) {
                        // Dropping is best effort: a holder that misses it lets the prepared write lapse.
                        done.exceptionally(e -> StoreOutcome.REFUSED_NEWER);
                        if (error != null) {
                            return CompletableFuture.<Boolean>failedFuture(OwnerThread.unwrap(error));
                        }
                        return prepared == StoreOutcome.REFUSED_NOT_COORDINATOR
                                ? CompletableFuture.<Boolean>failedFuture(new DhtException(KademliaWire.NOT_COORDINATOR))
                                : CompletableFuture.completedFuture(false);
                    }
                    return done.thenApply(outcome -> outcome == StoreOutcome.TAKEN);
                })).thenCompose(f -> f);
    }

    /** This node's own copy of a STORE it coordinates: no sender to check, it is the coordinator. */
    private StoreOutcome storeHere(String key, StoredValue value, long prev) {
        long now = runtime.nanos().getAsLong();
        return store.offer(key, value, prev, false, now).orElseGet(() -> {
            store.prepare(key, value, now);
            return StoreOutcome.TAKEN;
        });
    }

    /**
     * Asks every holder but this node with {@code remote} and runs
     * {@code here} for this node when it is one; completes with
     * {@link StoreOutcome#TAKEN} when all took it, else with a refusal
     * ({@link StoreOutcome#REFUSED_NOT_COORDINATOR} first), and fails when a
     * holder did not answer. This node's own part runs first, so a write it
     * refuses goes nowhere.
     */
    private CompletableFuture<StoreOutcome> round(List<Contact> holders, Supplier<StoreOutcome> here,
                                                  Function<Contact, CompletableFuture<StoreOutcome>> remote) {
        boolean includesSelf = holders.stream().anyMatch(h -> h.id().equals(self.id()));
        if (includesSelf) {
            StoreOutcome local = here.get();
            if (local != StoreOutcome.TAKEN) {
                return CompletableFuture.completedFuture(local);
            }
        }
        List<CompletableFuture<StoreOutcome>> acks = new ArrayList<>();
        for (Contact holder : holders) {
            if (!holder.id().equals(self.id())) {
                acks.add(remote.apply(holder));
            }
        }
        return CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).thenApply(v -> {
            if (acks.stream().anyMatch(a -> a.join() == StoreOutcome.REFUSED_NOT_COORDINATOR)) {
                return StoreOutcome.REFUSED_NOT_COORDINATOR;
            }
            return acks.stream().allMatch(a -> a.join() == StoreOutcome.TAKEN)
                    ? StoreOutcome.TAKEN : StoreOutcome.REFUSED_NEWER;
        });
    }
}
