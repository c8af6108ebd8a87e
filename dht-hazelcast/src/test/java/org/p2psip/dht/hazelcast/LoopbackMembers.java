package org.p2psip.dht.hazelcast;

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

import com.hazelcast.cluster.Address;
import com.hazelcast.instance.EndpointQualifier;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.Eventually;
import org.p2psip.core.testing.FreePorts;

/**
 * Starts real Hazelcast members on 127.0.0.1, each on a free port, talking
 * real TCP to each other, for the tests of this module.
 */
final class LoopbackMembers implements AutoCloseable {

    static final String HOST = "127.0.0.1";
    static final Duration START_WAIT = Duration.ofSeconds(40);

    private final List<HazelcastDht> nodes = new ArrayList<>();
    private final int replicas;
    private final Clock clock;

    LoopbackMembers(int replicas, Clock clock) {
        this.replicas = replicas;
        this.clock = clock;
    }

    /**
     * Starts {@code size} members: the first alone, the rest in parallel joining
     * it, then waits until every member sees all of them.
     */
    LoopbackMembers start(int size) {
        HazelcastDht seed = await(startMember(List.of(), Map.of()));
        nodes.add(seed);
        List<HostPort> bootstrap = List.of(overlayOf(seed));
        List<CompletableFuture<Dht>> joining = new ArrayList<>();
        for (int i = 1; i < size; i++) {
            joining.add(startMember(bootstrap, Map.of()));
        }
        for (CompletableFuture<Dht> join : joining) {
            nodes.add(await(join));
        }
        waitUntil(() -> nodes.stream().allMatch(n -> n.hazelcast().getCluster().getMembers().size() == size),
                START_WAIT, "members to see each other");
        return this;
    }

    List<HazelcastDht> nodes() {
        return nodes;
    }

    /** Starts a member that also accepts Hazelcast clients on a port of its own ({@link #clientEndpointOf}). */
    CompletableFuture<Dht> startMember(List<HostPort> bootstrap, Map<String, String> options) {
        Map<String, String> withClients = new HashMap<>(options);
        if (!options.containsKey("client")) {
            withClients.put("client-port", Integer.toString(freePort()));
        }
        return new HazelcastDhtProvider().start(config(freePort(), freePort(), bootstrap, withClients));
    }

    DhtConfig config(int sipPort, int overlayPort, List<HostPort> bootstrap, Map<String, String> options) {
        Map<String, String> all = new HashMap<>(fastOptions());
        all.putAll(options);
        return new DhtConfig(new HostPort(HOST, sipPort), Optional.of(new HostPort(HOST, overlayPort)), bootstrap,
                replicas, clock, all);
    }

    /**
     * Hazelcast settings only tests need: a dead member is declared dead within
     * a few seconds instead of ten, so the crash test does not wait on it.
     */
    static Map<String, String> fastOptions() {
        return Map.of("hazelcast.max.no.heartbeat.seconds", "4");
    }

    static HostPort overlayOf(HazelcastDht node) {
        return HostPort.parse(node.self().id());
    }

    /** Where {@code node} accepts Hazelcast clients (nodes with {@code --dht-client}). */
    static HostPort clientEndpointOf(HazelcastDht node) {
        Address client = node.hazelcast().getCluster().getLocalMember().getAddressMap().get(EndpointQualifier.CLIENT);
        if (client == null) {
            throw new AssertionError(node.self().id() + " accepts no clients");
        }
        return new HostPort(client.getHost(), client.getPort());
    }

    @Override
    public void close() {
        // One at a time, newest first, as an operator would stop them: members leaving
        // together keep trying to reach each other and fill the log with warnings.
        for (int i = nodes.size() - 1; i >= 0; i--) {
            nodes.get(i).close();
        }
    }

    /** A port below the ephemeral range, which the members' own outgoing connections cannot take meanwhile. */
    static int freePort() {
        return FreePorts.udpAndTcp();
    }

    @SuppressWarnings("unchecked")
    static <T> T await(CompletableFuture<? extends Dht> future) {
        return (T) future.orTimeout(START_WAIT.toSeconds(), TimeUnit.SECONDS).join();
    }

    /** Polls {@code condition} until it holds or {@code limit} passes. */
    static void waitUntil(BooleanSupplier condition, Duration limit, String what) {
        Eventually.until(condition, limit, what);
    }
}
