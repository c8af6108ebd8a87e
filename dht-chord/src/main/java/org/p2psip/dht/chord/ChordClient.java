package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.p2psip.core.overlay.OverlayException;
import org.p2psip.core.overlay.OverlayTransport;
import org.p2psip.core.overlay.WindowedTransport;

/**
 * One typed method per Chord message, over the authenticated overlay
 * transport; every call fails (never hangs) after the RPC timeout, or, for
 * the messages that move entries in bulk (fetch pages, hand-backs, pushes),
 * after {@value #BULK_TIMEOUTS} times that: a frame of entries queued behind
 * others on a loaded link is slow, not lost, and a bulk call's timeout
 * condemns no node, it only makes the mover ask again. A conditional write
 * may take {@value #WRITE_TIMEOUTS}: the owner answers it only after its own
 * call to the first replica ({@link FencedWrites}), which has a whole RPC
 * timeout of its own. With one, a slow fence made the caller give up on a
 * write the owner went on to commit, and the caller's next attempt queued
 * behind it at the owner, so on a loaded ring every attempt timed out.
 */
final class ChordClient implements RingRpc {

    /** What a conditional write at the owner came to. */
    record WriteAnswer(byte status, long version) {
    }

    /** How many RPC timeouts a bulk call may take. */
    static final int BULK_TIMEOUTS = 5;
    /** How many RPC timeouts a conditional write may take: the hop to the owner and the owner's to its fence. */
    static final int WRITE_TIMEOUTS = 2;

    private final OverlayTransport transport;
    private final Duration timeout;
    private final Duration bulkTimeout;
    private final Duration writeTimeout;

    ChordClient(OverlayTransport transport, Duration timeout) {
        this.transport = transport;
        this.timeout = timeout;
        this.bulkTimeout = timeout.multipliedBy(BULK_TIMEOUTS);
        this.writeTimeout = timeout.multipliedBy(WRITE_TIMEOUTS);
    }

    private CompletableFuture<ChordWire.In> call(NodeRef at, int type, ChordWire.Out payload) {
        return call(at, type, payload, timeout);
    }

    private CompletableFuture<ChordWire.In> call(NodeRef at, int type, ChordWire.Out payload, Duration limit) {
        return transport.request(at.overlay(), type, payload.bytes(), limit).thenApply(ChordWire.In::new);
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

    /** The id a node about to join through {@code at}, whose address hashes to {@code seed}, should take. */
    CompletableFuture<BigInteger> place(NodeRef at, BigInteger seed) {
        return call(at, ChordWire.PLACE, new ChordWire.Out().id(seed)).thenApply(ChordWire.In::id);
    }

    @Override
    public CompletableFuture<Void> notify(NodeRef at, NodeRef candidate) {
        return call(at, ChordWire.NOTIFY, new ChordWire.Out().node(candidate)).thenApply(in -> null);
    }

    @Override
    public boolean inconclusive(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        return cause instanceof OverlayException o && o.reason() == OverlayException.Reason.TIMEOUT;
    }

    @Override
    public boolean heldBack(Throwable failure) {
        return WindowedTransport.backedOff(failure);
    }

    @Override
    public CompletableFuture<Void> ping(NodeRef at) {
        return call(at, ChordWire.PING, new ChordWire.Out()).thenApply(in -> null);
    }

    /** What a read came to: {@link ChordWire#FOUND} with the entry, {@link ChordWire#NOT_FOUND}, or {@link ChordWire#NOT_OWNER}. */
    record ReadAnswer(byte status, Optional<StoredEntry> entry) {
    }

    /**
     * Reads a key. {@code asOwner}: the node must answer as the key's owner,
     * ready to serve it, or refuse; otherwise it answers from whatever copy it
     * holds (a replica read).
     */
    CompletableFuture<ReadAnswer> get(NodeRef at, String key, boolean asOwner) {
        return call(at, ChordWire.GET, new ChordWire.Out().text(key).flag(asOwner)).thenApply(in -> {
            byte status = in.code();
            return new ReadAnswer(status, status == ChordWire.FOUND ? Optional.of(in.entry()) : Optional.empty());
        });
    }

    /**
     * One page of a range fetch: whether the node asked holds the whole range
     * (it has served it, or started the ring) rather than whatever copies it
     * happens to have, its successor (where to ask next when it does not),
     * whether it could tell what changed since the mark asked for ({@code
     * false} when that mark is older than the removals it keeps; the page is
     * empty then), the entries of the page and, for changes, the removals,
     * the key to ask from for the next page, if any, and the node's change
     * mark when it read the page.
     */
    record FetchPage(boolean whole, NodeRef successor, boolean told, List<StoredEntry> entries,
                     List<KeyStore.Removal> removals, Optional<String> next, long mark) {

        FetchPage {
            entries = List.copyOf(entries);
            removals = List.copyOf(removals);
        }
    }

    /**
     * What a range fetch asks for, besides the range: {@code copyOnly} for a
     * copy taken before this node takes the range over (the source must not
     * hand the range over for it), and {@code since}, a change mark the
     * source gave before, for only what changed after it.
     */
    record PageRequest(boolean copyOnly, OptionalLong since) {

        static final PageRequest TAKE_OVER = new PageRequest(false, OptionalLong.empty());

        PageRequest {
            Objects.requireNonNull(since, "since");
        }
    }

    /**
     * Asks {@code at}, for {@code requester}, for the entries it holds with
     * an id in {@code (from, to]} whose keys sort after {@code after}: one
     * page, small enough to come back well within the RPC timeout however
     * large the range.
     */
    CompletableFuture<FetchPage> fetchPage(NodeRef at, NodeRef requester, BigInteger from, BigInteger to,
                                           Optional<String> after, PageRequest request) {
        ChordWire.Out out = new ChordWire.Out().node(requester).id(from).id(to).optionalText(after)
                .flag(request.copyOnly()).optionalNum(request.since());
        return call(at, ChordWire.FETCH_PAGE, out, bulkTimeout).thenApply(in -> new FetchPage(in.flag(), in.node(),
                in.flag(), in.entries(), in.removals(), in.optionalText(), in.num()));
    }

    CompletableFuture<WriteAnswer> putIfVersion(NodeRef at, String key, long expected, byte[] value,
                                                Instant expiresAt) {
        ChordWire.Out out = new ChordWire.Out().text(key).num(expected).blob(value).num(expiresAt.toEpochMilli());
        return call(at, ChordWire.PUT_IF, out, writeTimeout).thenApply(in -> new WriteAnswer(in.code(), in.num()));
    }

    CompletableFuture<WriteAnswer> removeIfVersion(NodeRef at, String key, long expected) {
        return call(at, ChordWire.REMOVE_IF, new ChordWire.Out().text(key).num(expected), writeTimeout)
                .thenApply(in -> new WriteAnswer(in.code(), in.num()));
    }

    /** Pushes copies (newest wins at the receiver) and removals. */
    CompletableFuture<Void> replicate(NodeRef at, List<StoredEntry> entries, List<KeyStore.Removal> removals) {
        ChordWire.Out out = new ChordWire.Out().entries(entries).removals(removals);
        return call(at, ChordWire.REPLICATE, out, bulkTimeout).thenApply(in -> null);
    }

    /**
     * Copies of a range the sender no longer owns, for the node now in front
     * of it: it keeps them, and passes those lying before its own
     * predecessor on to that node, at most {@code hopsLeft} more times.
     */
    CompletableFuture<Void> handBack(NodeRef at, List<StoredEntry> entries, int hopsLeft) {
        ChordWire.Out out = new ChordWire.Out().num(hopsLeft).entries(entries);
        return call(at, ChordWire.HAND_BACK, out, bulkTimeout).thenApply(in -> null);
    }

    /**
     * What the first replica made of an owner's write: {@link ChordWire#APPLIED},
     * {@link ChordWire#NOT_OWNER} (the writer is not its predecessor), or
     * {@link ChordWire#CONFLICT} with the newer copy it holds.
     */
    record FenceAnswer(byte status, Optional<StoredEntry> newer) {
    }

    /**
     * An owner's write, or removal ({@code written} with an empty value and
     * the removed version), to its first successor, which takes it only if
     * {@code writer} is its predecessor and it holds nothing newer than
     * {@code base}, the version the write replaces.
     */
    CompletableFuture<FenceAnswer> ownerWrite(NodeRef at, NodeRef writer, long base, StoredEntry written,
                                              boolean removal) {
        ChordWire.Out out = new ChordWire.Out().node(writer).num(base).flag(removal);
        if (removal) {
            out.text(written.key()).num(written.version());
        } else {
            out.entry(written);
        }
        return call(at, ChordWire.OWNER_WRITE, out).thenApply(in -> {
            byte status = in.code();
            return new FenceAnswer(status, status == ChordWire.CONFLICT ? Optional.of(in.entry()) : Optional.empty());
        });
    }

    /** A graceful leave: {@code leaver} is going, and names its own predecessor as the heir. */
    CompletableFuture<Void> leaving(NodeRef at, NodeRef leaver, Optional<NodeRef> leaversPredecessor) {
        return call(at, ChordWire.LEAVING, new ChordWire.Out().node(leaver).optionalNode(leaversPredecessor))
                .thenApply(in -> null);
    }
}
