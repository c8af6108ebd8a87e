package org.p2psip.core.dht;

import java.util.concurrent.CompletableFuture;

/**
 * A DHT backend, found by name through {@link java.util.ServiceLoader}: a
 * backend module lists its provider in
 * {@code META-INF/services/org.p2psip.core.dht.DhtProvider}.
 */
public interface DhtProvider {

    /** The name users give to {@code --dht}. */
    String name();

    /**
     * Starts a node: binds, joins the overlay, and completes once the node
     * can serve requests. Completes exceptionally with a
     * {@link DhtException} whose message fits on one line when it cannot.
     */
    CompletableFuture<Dht> start(DhtConfig config);
}
