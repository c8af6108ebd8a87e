package org.p2psip.dht.chord;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.Eventually;

/** Chord nodes in this JVM on 127.0.0.1, each with its own transport, port and owner thread. */
final class LoopbackRing implements AutoCloseable {

    static final String SECRET = "test-ring-secret";
    static final Duration CONVERGE = Duration.ofSeconds(30);

    private final int replicas;
    private final Clock clock;
    private final List<ChordDht> nodes = new ArrayList<>();
    private int sipPort = 15060;

    LoopbackRing(int replicas, Clock clock) {
        this.replicas = replicas;
        this.clock = clock;
    }

    static Map<String, String> fastOptions() {
        return Map.of("overlay-secret", SECRET, "stabilize-ms", "50", "rpc-timeout-ms", "400",
                "start-timeout-seconds", "10");
    }

    DhtConfig config(List<HostPort> bootstrap, Map<String, String> extra) {
        Map<String, String> all = new HashMap<>(fastOptions());
        all.putAll(extra);
        return new DhtConfig(new HostPort("127.0.0.1", sipPort++), Optional.of(new HostPort("127.0.0.1", 0)),
                bootstrap, replicas, clock, all);
    }

    CompletableFuture<Dht> startNode(List<HostPort> bootstrap, Map<String, String> extra) {
        return new ChordDhtProvider().start(config(bootstrap, extra));
    }

    /** Starts a node joining through the first live node (or a new ring) and keeps it. */
    ChordDht add() {
        return add(Map.of());
    }

    /** As {@link #add()}, with extra {@code --dht-option}s. */
    ChordDht add(Map<String, String> extra) {
        List<HostPort> bootstrap = nodes.isEmpty() ? List.of() : List.of(nodes.get(0).node().overlay());
        try {
            ChordDht n = (ChordDht) startNode(bootstrap, extra).get(20, TimeUnit.SECONDS);
            nodes.add(n);
            return n;
        } catch (Exception e) {
            throw new AssertionError("node did not start: " + e, e);
        }
    }

    /** As {@link #add(Map)}, joining with its share of the keys held back until it claims it. */
    ChordDht addHoldingShare(Map<String, String> extra) {
        List<HostPort> bootstrap = List.of(nodes.get(0).node().overlay());
        try {
            ChordDht n = (ChordDht) new ChordDhtProvider().start(config(bootstrap, extra).holdingShare())
                    .get(20, TimeUnit.SECONDS);
            nodes.add(n);
            return n;
        } catch (Exception e) {
            throw new AssertionError("node did not start: " + e, e);
        }
    }

    LoopbackRing start(int size) {
        for (int i = 0; i < size; i++) {
            add();
        }
        awaitIdeal();
        return this;
    }

    List<ChordDht> nodes() {
        return nodes;
    }

    /** The live nodes in ring order (by id), as a list of the caller's own. */
    List<ChordDht> byId() {
        List<ChordDht> sorted = new ArrayList<>(nodes);
        sorted.sort(java.util.Comparator.comparing(n -> n.node().id()));
        return sorted;
    }

    void leave(ChordDht n) {
        nodes.remove(n);
        n.close();
    }

    void crash(ChordDht n) {
        nodes.remove(n);
        n.crash();
    }

    List<RingState> snapshots() {
        return nodes.stream().map(ChordDht::ringSnapshot).toList();
    }

    List<String> invariantViolations() {
        return RingInvariants.violations(snapshots());
    }

    void awaitIdeal() {
        waitUntil(() -> RingInvariants.idealViolations(snapshots()).isEmpty(), CONVERGE,
                () -> "the ideal ring: " + RingInvariants.idealViolations(snapshots()));
    }

    static void waitUntil(BooleanSupplier condition, Duration limit, java.util.function.Supplier<String> what) {
        Eventually.until(condition, limit, what);
    }

    @Override
    public void close() {
        nodes.forEach(ChordDht::crash);
        nodes.clear();
    }
}
