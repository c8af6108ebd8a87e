package org.p2psip.servlet.testing;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.DhtProvider;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.Placement;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.dht.local.LocalDht;

/**
 * {@code --dht held}: an in-memory table whose answers wait while the test
 * holds its {@link Valve} (named by the {@code valve=NAME} option), as an
 * overlay's answers wait behind its queues, so a test decides exactly how
 * many operations are in flight at once, and whether they succeed.
 */
public final class HeldDhtProvider implements DhtProvider {

    public static final String NAME = "held";
    private static final Map<String, Valve> VALVES = new ConcurrentHashMap<>();

    /** The valve of the nodes started with {@code valve=name}. */
    public static Valve valve(String name) {
        return VALVES.computeIfAbsent(name, n -> new Valve());
    }

    /** Whether operations answer now or wait for {@link #open} or {@link #fail}. */
    public static final class Valve {
        private final AtomicReference<CompletableFuture<Void>> gate =
                new AtomicReference<>(CompletableFuture.completedFuture(null));
        private final AtomicInteger waiting = new AtomicInteger();

        /** From now on, operations wait for {@link #open}. */
        public void close() {
            gate.updateAndGet(g -> g.isDone() ? new CompletableFuture<>() : g);
        }

        /** Lets every waiting operation answer, and the ones after them at once. */
        public void open() {
            gate.get().complete(null);
        }

        /** Fails every waiting operation with {@code failure}; the ones after them answer at once. */
        public void fail(RuntimeException failure) {
            gate.get().completeExceptionally(failure);
        }

        /** Operations waiting for {@link #open} now. */
        public int waiting() {
            return waiting.get();
        }

        <T> CompletableFuture<T> pass(CompletableFuture<T> answer) {
            CompletableFuture<Void> now = gate.get();
            if (now.isDone()) {
                return answer;
            }
            waiting.incrementAndGet();
            return answer.thenCombine(now, (value, opened) -> value).whenComplete((v, e) -> waiting.decrementAndGet());
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CompletableFuture<Dht> start(DhtConfig config) {
        Peer self = new Peer("held@" + config.sip(), Optional.of(config.sip()));
        Valve valve = valve(config.options().getOrDefault("valve", "default"));
        Dht local = new LocalDht(new LocalDht.Store(config.clock(), self), self, () -> { });
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
                return valve.pass(local.get(key));
            }

            @Override
            public CompletableFuture<Boolean> putIfVersion(String key, long expectedVersion, byte[] value,
                                                           Instant expiresAt) {
                return valve.pass(local.putIfVersion(key, expectedVersion, value, expiresAt));
            }

            @Override
            public CompletableFuture<Boolean> removeIfVersion(String key, long expectedVersion) {
                return valve.pass(local.removeIfVersion(key, expectedVersion));
            }

            @Override
            public CompletableFuture<Placement> placement(String key) {
                return local.placement(key);
            }

            @Override
            public long storedEntries() {
                return local.storedEntries();
            }

            @Override
            public void close() {
                local.close();
            }
        });
    }
}
