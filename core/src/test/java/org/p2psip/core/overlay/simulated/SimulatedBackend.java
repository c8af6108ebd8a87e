package org.p2psip.core.overlay.simulated;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.OverlayRuntime;

/**
 * How a fault schedule starts one node of an overlay backend on a
 * simulated network: the backend's real node class, its transport bound on
 * the {@link SimulatedOverlayNetwork} instead of a socket.
 */
public interface SimulatedBackend {

    /** A node that was started: the SPI it serves, its join, and how to kill it with no goodbye. */
    record Node(Dht dht, CompletableFuture<Void> joined, Runnable crash) {
    }

    String name();

    /** Whether a dead peer is silent (datagrams) or refuses at once (streams). */
    SimulatedOverlayNetwork.Semantics semantics();

    /**
     * Binds a node at {@code address}, joins it through {@code seeds} (none:
     * it starts the overlay) and starts its maintenance once joined.
     */
    Node start(HostPort address, OverlayRuntime runtime, SimulatedOverlayNetwork network, List<HostPort> seeds,
               int replicas);
}
