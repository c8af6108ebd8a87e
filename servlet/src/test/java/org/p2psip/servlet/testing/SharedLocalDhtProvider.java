package org.p2psip.servlet.testing;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.DhtProvider;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.local.LocalDht;

/**
 * {@code --dht shared-local}: every node of this JVM started with the same
 * {@code store=NAME} option shares one in-memory table, so several front
 * nodes in one test see one location service, as nodes of a cluster do.
 */
public final class SharedLocalDhtProvider implements DhtProvider {

    public static final String NAME = "shared-local";
    private static final Map<String, LocalDht.Store> STORES = new ConcurrentHashMap<>();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CompletableFuture<Dht> start(DhtConfig config) {
        Peer self = new Peer("shared@" + config.sip(), Optional.of(config.sip()));
        String name = config.options().getOrDefault("store", "default");
        LocalDht.Store store = STORES.computeIfAbsent(name, n -> new LocalDht.Store(config.clock(), self));
        return CompletableFuture.completedFuture(new LocalDht(store, self, () -> { }));
    }
}
