package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.p2psip.core.overlay.NettyOverlayTransport;

/**
 * One typed method per Chord message, over the authenticated overlay
 * transport; every call fails (never hangs) after the RPC timeout.
 */
final class ChordClient implements RingRpc {

    /** What a conditional write at the owner came to. */
    record WriteAnswer(byte status, long version) {
    }

    private final NettyOverlayTransport transport;
    private final Duration timeout;

    ChordClient(NettyOverlayTransport transport, Duration timeout) {
        this.transport = transport;
        this.timeout = timeout;
    }

    private CompletableFuture<ChordWire.In> call(NodeRef at, int type, ChordWire.Out payload) {
        return transport.request(at.overlay(), type, payload.bytes(), timeout).thenApply(ChordWire.In::new);
    }

    @Override
    public CompletableFuture<HopReply> nextHop(NodeRef at, BigInteger id) {
        return call(at, ChordWire.NEXT_HOP, new ChordWire.Out().id(id))
                .thenApply(in -> new HopReply(in.flag(), in.node(), in.nodes()));
    }

    @Override
    public CompletableFuture<Neighbours> neighbours(NodeRef at) {
        return call(at, ChordWire.NEIGHBOURS, new ChordWire.Out())
                .thenApply(in -> new Neighbours(in.optionalNode(), in.nodes()));
    }

    @Override
    public CompletableFuture<Void> notify(NodeRef at, NodeRef candidate) {
        return call(at, ChordWire.NOTIFY, new ChordWire.Out().node(candidate)).thenApply(in -> null);
    }

    @Override
    public CompletableFuture<Void> ping(NodeRef at) {
        return call(at, ChordWire.PING, new ChordWire.Out()).thenApply(in -> null);
    }

    CompletableFuture<Optional<StoredEntry>> get(NodeRef at, String key) {
        return call(at, ChordWire.GET, new ChordWire.Out().text(key))
                .thenApply(in -> in.flag() ? Optional.of(in.entry()) : Optional.empty());
    }

    CompletableFuture<WriteAnswer> putIfVersion(NodeRef at, String key, long expected, byte[] value,
                                                Instant expiresAt) {
        return call(at, ChordWire.PUT_IF, new ChordWire.Out().text(key).num(expected).blob(value)
                .num(expiresAt.toEpochMilli())).thenApply(in -> new WriteAnswer(in.code(), in.num()));
    }

    CompletableFuture<WriteAnswer> removeIfVersion(NodeRef at, String key, long expected) {
        return call(at, ChordWire.REMOVE_IF, new ChordWire.Out().text(key).num(expected))
                .thenApply(in -> new WriteAnswer(in.code(), in.num()));
    }

    /** Pushes copies (newest wins at the receiver) and removals. */
    CompletableFuture<Void> replicate(NodeRef at, List<StoredEntry> entries, List<StoredEntry> removals) {
        ChordWire.Out out = new ChordWire.Out().num(entries.size());
        entries.forEach(out::entry);
        out.num(removals.size());
        removals.forEach(r -> out.text(r.key()).num(r.version()));
        return call(at, ChordWire.REPLICATE, out).thenApply(in -> null);
    }

    /** A graceful leave: {@code leaver} is going, and names its own predecessor as the heir. */
    CompletableFuture<Void> leaving(NodeRef at, NodeRef leaver, Optional<NodeRef> leaversPredecessor) {
        return call(at, ChordWire.LEAVING, new ChordWire.Out().node(leaver).optionalNode(leaversPredecessor))
                .thenApply(in -> null);
    }
}
