package org.p2psip.servlet.testing;

import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.DhtProvider;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.Placement;
import org.p2psip.core.dht.VersionedValue;

/** {@code --dht stalled}: a backend whose every call never completes, to test the node's timeouts. */
public final class StalledDhtProvider implements DhtProvider {

    public static final String NAME = "stalled";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CompletableFuture<Dht> start(DhtConfig config) {
        Peer self = new Peer("stalled@" + config.sip(), Optional.of(config.sip()));
        return CompletableFuture.completedFuture(new Dht() {
            @Override
            public String backendName() {
                return NAME;
            }

            @Override
            public Peer self() {
                return self;
            }

            @Override
            public CompletableFuture<Optional<VersionedValue>> get(String key) {
                return new CompletableFuture<>();
            }

            @Override
            public CompletableFuture<Boolean> putIfVersion(String key, long expectedVersion, byte[] value,
                                                           Instant expiresAt) {
                return new CompletableFuture<>();
            }

            @Override
            public CompletableFuture<Boolean> removeIfVersion(String key, long expectedVersion) {
                return new CompletableFuture<>();
            }

            @Override
            public CompletableFuture<Placement> placement(String key) {
                return new CompletableFuture<>();
            }

            @Override
            public void close() {
            }
        });
    }
}
