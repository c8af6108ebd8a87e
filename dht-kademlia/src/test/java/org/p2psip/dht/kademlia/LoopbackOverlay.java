package org.p2psip.dht.kademlia;

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

/** Kademlia nodes in this JVM on 127.0.0.1, each with its own UDP socket and owner thread. */
final class LoopbackOverlay implements AutoCloseable {

    static final String SECRET = "test-kademlia-secret";

    private final int replicas;
    private final Clock clock;
    private final List<KademliaDht> nodes = new ArrayList<>();
    private int sipPort = 25060;

    LoopbackOverlay(int replicas, Clock clock) {
        this.replicas = replicas;
        this.clock = clock;
    }

    static Map<String, String> fastOptions() {
        return Map.of("overlay-secret", SECRET, "rpc-timeout-ms", "1000", "retry-ms", "100",
                "start-timeout-seconds", "10", "refresh-ms", "5000");
    }

    DhtConfig config(List<HostPort> bootstrap, Map<String, String> extra) {
        Map<String, String> all = new HashMap<>(fastOptions());
        all.putAll(extra);
        return new DhtConfig(new HostPort("127.0.0.1", sipPort++), Optional.of(new HostPort("127.0.0.1", 0)),
                bootstrap, replicas, clock, all);
    }

    CompletableFuture<Dht> startNode(List<HostPort> bootstrap, Map<String, String> extra) {
        return new KademliaDhtProvider().start(config(bootstrap, extra));
    }

    /** Starts a node joining through the first live node (or a new overlay) and keeps it. */
    KademliaDht add() {
        List<HostPort> bootstrap = nodes.isEmpty() ? List.of() : List.of(nodes.get(0).contact().overlay());
        try {
            KademliaDht n = (KademliaDht) startNode(bootstrap, Map.of()).get(20, TimeUnit.SECONDS);
            nodes.add(n);
            return n;
        } catch (Exception e) {
            throw new AssertionError("node did not start: " + e, e);
        }
    }

    /** As {@link #add()}, joining with its share of the keys held back until it claims it. */
    KademliaDht addHoldingShare() {
        List<HostPort> bootstrap = List.of(nodes.get(0).contact().overlay());
        try {
            KademliaDht n = (KademliaDht) new KademliaDhtProvider().start(config(bootstrap, Map.of()).holdingShare())
                    .get(20, TimeUnit.SECONDS);
            nodes.add(n);
            return n;
        } catch (Exception e) {
            throw new AssertionError("node did not start: " + e, e);
        }
    }

    LoopbackOverlay start(int size) {
        for (int i = 0; i < size; i++) {
            add();
        }
        awaitFullTables();
        return this;
    }

    /** In an overlay smaller than k every node ends up knowing every other. */
    void awaitFullTables() {
        await(() -> nodes.stream().allMatch(n -> tableSize(n) >= Math.min(nodes.size() - 1, 20)),
                Duration.ofSeconds(30), "routing tables did not fill");
    }

    private static int tableSize(KademliaDht n) {
        try {
            return n.routingTableSize().get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            return -1;
        }
    }

    List<KademliaDht> nodes() {
        return nodes;
    }

    void crash(KademliaDht n) {
        nodes.remove(n);
        n.close();
    }

    static void await(BooleanSupplier condition, Duration limit, String what) {
        Eventually.until(condition, limit, what);
    }

    @Override
    public void close() {
        nodes.forEach(KademliaDht::close);
        nodes.clear();
    }
}
