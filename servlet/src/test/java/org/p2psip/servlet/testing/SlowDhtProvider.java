package org.p2psip.servlet.testing;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.DhtProvider;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.Placement;
import org.p2psip.core.dht.VersionedValue;

/**
 * {@code --dht slow}: a backend whose every call answers after {@value #DELAY_MILLIS} ms
 * (nothing stored; every conditional write succeeds), as a DHT with a
 * standing queue looks from the node, to test the node's overload gate.
 */
public final class SlowDhtProvider implements DhtProvider {

    public static final String NAME = "slow";
    public static final long DELAY_MILLIS = 700;

    private static final Executor LATER = CompletableFuture.delayedExecutor(DELAY_MILLIS, TimeUnit.MILLISECONDS);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CompletableFuture<Dht> start(DhtConfig config) {
        Peer self = new Peer("slow@" + config.sip(), Optional.of(config.sip()));
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
                return CompletableFuture.supplyAsync(Optional::empty, LATER);
            }

            @Override
            public CompletableFuture<Boolean> putIfVersion(String key, long expectedVersion, byte[] value,
                                                           Instant expiresAt) {
                return CompletableFuture.supplyAsync(() -> true, LATER);
            }

            @Override
            public CompletableFuture<Boolean> removeIfVersion(String key, long expectedVersion) {
                return CompletableFuture.supplyAsync(() -> true, LATER);
            }

            @Override
            public CompletableFuture<Placement> placement(String key) {
                return CompletableFuture.supplyAsync(() -> new Placement(self, List.of()), LATER);
            }

            @Override
            public void close() {
            }
        });
    }
}
