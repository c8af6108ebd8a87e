package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.util.concurrent.CompletableFuture;

/**
 * The ring-maintenance messages, one typed method each. A failed future
 * means the node did not answer: the protocol treats a refusal as the node
 * being dead, and a timeout ({@link #inconclusive}) as a suspicion that
 * takes a few in a row. Implemented over the Netty overlay
 * ({@link ChordClient}) and in memory (the tests' {@code SimulatedNetwork}).
 */
public interface RingRpc {

    /** Asks {@code at} for the next step towards the owner of {@code id}. */
    CompletableFuture<HopReply> nextHop(NodeRef at, BigInteger id);

    /** Asks {@code at} for its predecessor and successor list (stabilize). */
    CompletableFuture<Neighbours> neighbours(NodeRef at);

    /** Tells {@code at} that {@code candidate} may be its predecessor (notify). */
    CompletableFuture<Void> notify(NodeRef at, NodeRef candidate);

    /** Completes if {@code at} is alive. */
    CompletableFuture<Void> ping(NodeRef at);

    /**
     * Whether a failed call says little about the peer's death: it timed
     * out (a starved or paused node), rather than being refused (no process
     * behind the port) or closed.
     */
    default boolean inconclusive(Throwable failure) {
        return false;
    }

    /**
     * Whether a failed call was never sent: this node held it back because
     * the peer already had as many of its calls in flight as its window
     * allows ({@code WindowedTransport}). It says nothing about the peer.
     */
    default boolean heldBack(Throwable failure) {
        return false;
    }
}
