package org.p2psip.core.overlay;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.p2psip.core.net.HostPort;

/**
 * What an overlay backend's data plane needs from the network: send one
 * request and get its answer, or an {@link OverlayException} saying why not
 * ({@code TIMEOUT}, {@code UNREACHABLE}, {@code REMOTE_ERROR}, {@code CLOSED})
 * no later than the timeout. Requests arriving at this node go to the
 * {@link OverlayRequestHandler} the transport was made with.
 *
 * <p>Implemented over TCP ({@link NettyOverlayTransport}), over UDP
 * ({@link NettyUdpOverlayTransport}) and, in core's test jar, over a seeded
 * in-memory network with a virtual clock, so that Chord's and Kademlia's
 * whole data plane runs unchanged on any of them.
 */
public interface OverlayTransport extends AutoCloseable {

    /** Where this transport listens (with the real port when bound to 0). */
    HostPort localAddress();

    /**
     * Sends one request to {@code peer} and completes with its answer's
     * payload, or fails with an {@link OverlayException} no later than
     * {@code timeout}.
     */
    CompletableFuture<byte[]> request(HostPort peer, int type, byte[] payload, Duration timeout);

    /** Stops listening; pending requests fail with {@code CLOSED}. Idempotent. */
    @Override
    void close();
}
