package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import org.p2psip.core.overlay.OverlayRequestHandler;

/**
 * The server side of {@link ChordClient}: one method per Chord message,
 * each answering from the node's parts. A request is decoded on the I/O
 * thread that delivers it and answered on the node's owner thread.
 */
final class ChordServer implements OverlayRequestHandler {

    private final RingState ring;
    private final IdSpace space;
    private final RingMaintenance maintenance;
    private final RangeCustody custody;
    private final KeyStore store;
    private final FencedWrites writes;
    private final KeyMover mover;
    private final OwnerThread owner;
    private final JoinPlacement placement;
    private final LongSupplier nanos;

    ChordServer(RingState ring, RingMaintenance maintenance, RangeCustody custody, KeyStore store,
                FencedWrites writes, KeyMover mover, OwnerThread owner, JoinPlacement placement, LongSupplier nanos) {
        this.ring = ring;
        this.space = ring.space();
        this.maintenance = maintenance;
        this.custody = custody;
        this.store = store;
        this.writes = writes;
        this.mover = mover;
        this.owner = owner;
        this.placement = placement;
        this.nanos = nanos;
    }

    @Override
    public CompletableFuture<byte[]> handle(int type, byte[] payload) {
        if (owner.closed()) {
            return CompletableFuture.failedFuture(new IllegalStateException("node is leaving"));
        }
        ChordWire.In in = new ChordWire.In(payload);
        return switch (type) {
            case ChordWire.NEXT_HOP -> nextHop(in.id());
            case ChordWire.NEIGHBOURS -> neighbours();
            case ChordWire.NOTIFY -> notified(in.node());
            case ChordWire.PING -> ping();
            case ChordWire.GET -> get(in.text(), in.flag());
            case ChordWire.FETCH_PAGE -> fetchPage(in.node(), in.id(), in.id(), in.optionalText(),
                    new ChordClient.PageRequest(in.flag(), in.optionalNum()));
            case ChordWire.PUT_IF -> putIfVersion(in.text(), in.num(), in.blob(), Instant.ofEpochMilli(in.num()));
            case ChordWire.REMOVE_IF -> removeIfVersion(in.text(), in.num());
            case ChordWire.REPLICATE -> replicate(in.entries(), in.removals());
            case ChordWire.HAND_BACK -> handBack((int) Math.min(in.num(), KeyMover.HAND_BACK_HOPS), in.entries());
            case ChordWire.OWNER_WRITE -> ownerWrite(in);
            case ChordWire.LEAVING -> leaving(in.node(), in.optionalNode());
            case ChordWire.PLACE -> place(in.id());
            default -> CompletableFuture.failedFuture(new IllegalArgumentException("unknown chord message " + type));
        };
    }

    private CompletableFuture<byte[]> nextHop(BigInteger id) {
        return owner.supply(() -> {
            HopReply r = ring.nextHop(id);
            return new ChordWire.Out().flag(r.done()).node(r.node()).nodes(r.successors()).bytes();
        });
    }

    private CompletableFuture<byte[]> place(BigInteger joinerSeed) {
        return owner.supply(() -> new ChordWire.Out().id(placement.place(ring.predecessor().map(NodeRef::id),
                ring.self().id(), ring.successors().stream().map(NodeRef::id).toList(), joinerSeed,
                nanos.getAsLong())).bytes());
    }

    private CompletableFuture<byte[]> neighbours() {
        return owner.supply(() -> new ChordWire.Out().optionalNode(ring.predecessor()).nodes(ring.successors())
                .bytes());
    }

    private CompletableFuture<byte[]> notified(NodeRef candidate) {
        return maintenance.notified(candidate).thenApply(v -> new byte[0]);
    }

    /**
     * Answered by the owner thread: a node whose owner thread is stuck (a
     * long GC pause, a starved machine) can serve nothing, so it should not
     * look alive either.
     */
    private CompletableFuture<byte[]> ping() {
        return owner.supply(() -> new byte[0]);
    }

    /** A read as the owner is refused unless this node serves the key; a replica read is not. */
    private CompletableFuture<byte[]> get(String key, boolean asOwner) {
        return owner.compose(() -> asOwner && !custody.serves(space.idOf(key))
                ? CompletableFuture.completedFuture(new ChordWire.Out().code(ChordWire.NOT_OWNER).bytes())
                : writes.afterPendingWrite(key, () -> encodeRead(writes.readHere(key, asOwner))));
    }

    private static byte[] encodeRead(Optional<StoredEntry> e) {
        ChordWire.Out out = new ChordWire.Out().code(e.isPresent() ? ChordWire.FOUND : ChordWire.NOT_FOUND);
        e.ifPresent(out::entry);
        return out.bytes();
    }

    private CompletableFuture<byte[]> fetchPage(NodeRef requester, BigInteger from, BigInteger to,
                                                Optional<String> after, ChordClient.PageRequest request) {
        return owner.compose(() -> mover.pageFor(requester, from, to, after, request).thenApply(p -> new ChordWire.Out()
                .flag(p.whole()).node(p.successor()).flag(p.told()).entries(p.entries()).removals(p.removals())
                .optionalText(p.next()).num(p.mark()).bytes()));
    }

    private CompletableFuture<byte[]> putIfVersion(String key, long expected, byte[] value, Instant expiresAt) {
        return owner.compose(() -> writes.put(key, expected, value, expiresAt)).thenApply(ChordServer::encodeWrite);
    }

    private CompletableFuture<byte[]> removeIfVersion(String key, long expected) {
        return owner.compose(() -> writes.remove(key, expected)).thenApply(ChordServer::encodeWrite);
    }

    private static byte[] encodeWrite(ChordClient.WriteAnswer a) {
        return new ChordWire.Out().code(a.status()).num(a.version()).bytes();
    }

    /** Copies pushed by an owner (newest wins here) and removals (applied unless what is held is newer). */
    private CompletableFuture<byte[]> replicate(List<StoredEntry> entries, List<KeyStore.Removal> removals) {
        return owner.supply(() -> {
            entries.forEach(store::mergeIfNewer);
            for (KeyStore.Removal r : removals) {
                store.removeIfNotNewer(r.key(), r.version());
            }
            return new byte[0];
        });
    }

    private CompletableFuture<byte[]> handBack(int hopsLeft, List<StoredEntry> entries) {
        return owner.supply(() -> {
            mover.handedBack(entries, hopsLeft);
            return new byte[0];
        });
    }

    /** At the first replica: an owner's write or removal, through the fence. */
    private CompletableFuture<byte[]> ownerWrite(ChordWire.In in) {
        NodeRef writer = in.node();
        long base = in.num();
        boolean removal = in.flag();
        StoredEntry written = removal ? new StoredEntry(in.text(), new byte[0], in.num(), Instant.EPOCH)
                : in.entry();
        return owner.supply(() -> {
            ChordClient.FenceAnswer answer = writes.fence(writer, base, written, removal);
            ChordWire.Out out = new ChordWire.Out().code(answer.status());
            answer.newer().ifPresent(out::entry);
            return out.bytes();
        });
    }

    /** A neighbour leaves gracefully, naming its own predecessor as the heir. */
    private CompletableFuture<byte[]> leaving(NodeRef leaver, Optional<NodeRef> heir) {
        return owner.supply(() -> {
            ring.predecessorHandedOver(leaver, heir.orElse(null));
            ring.forget(leaver);
            custody.memberLeft();
            mover.ringChanged();
            return new byte[0];
        });
    }
}
