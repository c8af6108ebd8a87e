package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owner's write path: conditional writes decided at the key's owner,
 * committed through the first replica (the fence), one at a time per key.
 * Runs on the node's owner thread only.
 *
 * <ul>
 *   <li>The owner alone decides versions, so no update is lost, and
 *       acknowledges a write only after it has reached its replicas. A node
 *       that does not serve the key refuses, and the caller looks up
 *       again.</li>
 *   <li>The fence rule. A failure detector can be wrong: a node that stalls
 *       for a few seconds is taken for dead and its successor serves its
 *       range, then it comes back still believing it owns that range. So the
 *       first replica takes an owner's write only while the writer is its
 *       predecessor and it holds nothing newer, and the owner stores and
 *       acknowledges a write only after that. Every acknowledged write of a
 *       key therefore passes through one node's store in order, and a
 *       returning owner's stale copies are refused there, then replaced by
 *       the ones its successor hands back ({@link KeyMover}).</li>
 *   <li>A write to a key waits for the one before it here to be committed
 *       or refused, and so does a read of it, so neither rests on a value
 *       the fence may still turn down.</li>
 * </ul>
 */
final class FencedWrites {

    private static final Logger LOG = LoggerFactory.getLogger(FencedWrites.class);

    private final RingState ring;
    private final IdSpace space;
    private final RangeCustody custody;
    private final KeyStore store;
    private final ChordClient client;
    private final OwnerThread owner;
    private final Clock clock;
    /** Keys with a write on its way to the first replica; a later write to one waits for it. */
    private final Map<String, CompletableFuture<Void>> writing = new HashMap<>();

    FencedWrites(RingState ring, RangeCustody custody, KeyStore store, ChordClient client, OwnerThread owner,
                 Clock clock) {
        this.ring = ring;
        this.space = ring.space();
        this.custody = custody;
        this.store = store;
        this.client = client;
        this.owner = owner;
        this.clock = clock;
    }

    /** At the owner: check ownership and version, then commit through the first replica. */
    CompletableFuture<ChordClient.WriteAnswer> put(String key, long expected, byte[] value, Instant expiresAt) {
        return afterWritesTo(key, () -> {
            if (!custody.serves(space.idOf(key))) {
                return notOwner();
            }
            Optional<StoredEntry> proposed = store.proposePut(key, expected, value, expiresAt, clock.instant());
            if (proposed.isEmpty()) {
                return conflict();
            }
            return commit(proposed.get(), expected, false);
        });
    }

    /** At the owner: a conditional removal, committed as {@link #put} is. */
    CompletableFuture<ChordClient.WriteAnswer> remove(String key, long expected) {
        return afterWritesTo(key, () -> {
            if (!custody.serves(space.idOf(key))) {
                return notOwner();
            }
            if (!store.canRemove(key, expected, clock.instant())) {
                return conflict();
            }
            return commit(new StoredEntry(key, new byte[0], expected, Instant.EPOCH), expected, true);
        });
    }

    /** The live copy held here; at TRACE, an owner's miss is logged (where a lost write shows). */
    Optional<StoredEntry> readHere(String key, boolean asOwner) {
        Optional<StoredEntry> found = store.live(key, clock.instant());
        if (asOwner && found.isEmpty()) {
            LOG.trace("owner has no {}", key);
        }
        return found;
    }

    /**
     * Reads once a write to the key on its way here has been committed or
     * refused, so a reader (about to write back) sees the outcome instead of
     * the value that write is replacing.
     */
    <T> CompletableFuture<T> afterPendingWrite(String key, Supplier<T> read) {
        CompletableFuture<Void> pending = writing.get(key);
        return pending == null ? CompletableFuture.completedFuture(read.get())
                : pending.thenApplyAsync(v -> read.get(), owner.executor());
    }

    /** The writes still on their way to the first replica for keys with ids in {@code (from, to]}. */
    List<CompletableFuture<Void>> pendingIn(BigInteger from, BigInteger to) {
        return writing.entrySet().stream()
                .filter(w -> space.betweenRightClosed(from, space.idOf(w.getKey()), to))
                .map(Map.Entry::getValue).toList();
    }

    /**
     * At the first replica, the fence: takes an owner's write only while the
     * writer is this node's confirmed predecessor (so this node does not
     * serve the key itself) and nothing newer than the version it replaces
     * is held here.
     */
    ChordClient.FenceAnswer fence(NodeRef writer, long base, StoredEntry written, boolean removal) {
        if (!ring.predecessor().equals(Optional.of(writer)) || !ring.predecessorConfirmed()
                || writing.containsKey(written.key())) {
            // Not its predecessor (or not one that has confirmed this node as its successor since this node
            // last stood still), or this node's own write to the key (from before the writer joined in front)
            // is still on its way: the writer asks again.
            return new ChordClient.FenceAnswer(ChordWire.NOT_OWNER, Optional.empty());
        }
        Optional<StoredEntry> newer = store.newerThan(written.key(), base, clock.instant());
        if (newer.isPresent()) {
            return new ChordClient.FenceAnswer(ChordWire.CONFLICT, newer);
        }
        keep(written, removal);
        if (LOG.isTraceEnabled()) {
            LOG.trace("fence takes {} v{} from {}", written.key(), written.version(), writer);
        }
        return new ChordClient.FenceAnswer(ChordWire.APPLIED, Optional.empty());
    }

    private static CompletableFuture<ChordClient.WriteAnswer> notOwner() {
        return CompletableFuture.completedFuture(new ChordClient.WriteAnswer(ChordWire.NOT_OWNER, 0));
    }

    private static CompletableFuture<ChordClient.WriteAnswer> conflict() {
        return CompletableFuture.completedFuture(new ChordClient.WriteAnswer(ChordWire.CONFLICT, 0));
    }

    /**
     * Runs {@code write} once every earlier write to the same key here has
     * been committed or refused, so a write never rests on a value that its
     * first replica may still turn down.
     */
    private <T> CompletableFuture<T> afterWritesTo(String key, Supplier<CompletableFuture<T>> write) {
        CompletableFuture<Void> before = writing.get(key);
        CompletableFuture<T> result = before == null ? write.get()
                : before.thenComposeAsync(v -> write.get(), owner.executor());
        if (!result.isDone()) {
            CompletableFuture<Void> done = result.handle((v, e) -> null);
            writing.put(key, done);
            done.whenCompleteAsync((v, e) -> writing.remove(key, done), owner.executor());
        }
        return result;
    }

    /**
     * Commits a write decided at this owner: first its successor — the node
     * that takes the key over if this one is taken for dead — must accept
     * it, which it does only while this node is its predecessor and it holds
     * no newer copy; only then is it stored here and pushed to the other
     * replicas, and acknowledged. So at any moment only one node can
     * acknowledge writes to a key, even when a stalled owner comes back
     * after its successor took its range over: the successor refuses it, and
     * hands back the copies it wrote meanwhile. Alone, or with one copy
     * only, there is nobody to ask.
     */
    private CompletableFuture<ChordClient.WriteAnswer> commit(StoredEntry written, long base, boolean removal) {
        List<NodeRef> targets = custody.replicaTargets();
        if (targets.isEmpty()) {
            return storeAndPush(written, removal, targets);
        }
        NodeRef fence = targets.get(0);
        return client.ownerWrite(fence, ring.self(), base, written, removal).handleAsync((answer, error) -> {
            if (error != null || answer.status() == ChordWire.NOT_OWNER) {
                return notOwner();
            }
            if (answer.status() == ChordWire.CONFLICT) {
                answer.newer().ifPresent(store::mergeIfNewer);
                return conflict();
            }
            return storeAndPush(written, removal,
                    custody.replicaTargets().stream().filter(t -> !t.equals(fence)).toList());
        }, owner.executor()).thenCompose(f -> f);
    }

    /**
     * Stores a committed write here and pushes it to {@code others}; answers
     * once each has acknowledged or been found dead (a dead replica is
     * replaced by stabilize, and the new one is brought up to date when the
     * ring change reaches {@link RangeCustody}).
     */
    private CompletableFuture<ChordClient.WriteAnswer> storeAndPush(StoredEntry written, boolean removal,
                                                                  List<NodeRef> others) {
        keep(written, removal);
        List<CompletableFuture<Void>> acks = new ArrayList<>();
        for (NodeRef t : others) {
            acks.add(replicateOne(t, written, removal));
        }
        Optional<NodeRef> pred = ring.predecessor();
        if (pred.isPresent() && !custody.serves(space.idOf(written.key())) && !others.contains(pred.get())) {
            // A node joined in front while this write was on its way and now owns the key — or one further
            // back does, several having joined at once; it may already have fetched the range, so the write
            // goes to it as a hand-back, which is passed back until it reaches the owner.
            acks.add(removal ? replicateOne(pred.get(), written, true)
                    : client.handBack(pred.get(), List.of(written), KeyMover.HAND_BACK_HOPS).exceptionally(e -> null));
        }
        if (LOG.isTraceEnabled()) {
            LOG.trace("owner {} {} v{}", removal ? "removes" : "writes", written.key(), written.version());
        }
        return CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new))
                .thenApply(v -> new ChordClient.WriteAnswer(ChordWire.APPLIED, written.version()));
    }

    /** Pushes one committed write or removal to {@code t}; completes normally even if {@code t} is gone. */
    private CompletableFuture<Void> replicateOne(NodeRef t, StoredEntry written, boolean removal) {
        CompletableFuture<Void> sent = removal
                ? client.replicate(t, List.of(), List.of(new KeyStore.Removal(written.key(), written.version())))
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
}
