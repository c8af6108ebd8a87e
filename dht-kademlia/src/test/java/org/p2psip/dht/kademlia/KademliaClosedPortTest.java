package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.OverlayRuntime;
import org.p2psip.core.overlay.simulated.SimulatedOverlayNetwork;
import org.p2psip.core.overlay.simulated.VirtualTime;

/**
 * A node whose process died on a live host: the host refuses what is sent
 * to its port (ICMP port unreachable, {@code REFUSED}), and its peers
 * evict it at the first refusal, without counting it written off; a host
 * that is silent leaves them to their timeouts, which take the two-second
 * window. Virtual time, a simulated datagram network.
 */
class KademliaClosedPortTest {

    private static final int REPLICAS = 2;
    private static final int KEYS = 60;

    private final VirtualTime time = new VirtualTime();
    private final SimulatedOverlayNetwork network = new SimulatedOverlayNetwork(time, 5,
            SimulatedOverlayNetwork.Semantics.DATAGRAM);
    private final List<KademliaDht> live = new ArrayList<>();

    private KademliaDht start(int index) {
        HostPort address = new HostPort("10.9.0." + index, 4000);
        OverlayRuntime runtime = new OverlayRuntime(time.executor("kademlia-" + index), time.clock(), time::nanos,
                2_000 + index);
        List<HostPort> seeds = live.isEmpty() ? List.of() : List.of(live.get(0).contact().overlay());
        KademliaDht dht = new KademliaDht(new Contact(IdSpace.SHA1.idOf(address.toString()), address,
                Optional.of(address)), runtime, REPLICAS, KademliaOptions.parse(Map.of()));
        dht.attach(network.bind(address, dht::handle));
        dht.join(seeds).thenRun(dht::startMaintenance);
        live.add(dht);
        time.runFor(Duration.ofSeconds(1));
        return dht;
    }

    private <T> T await(CompletableFuture<T> f) {
        assertTrue(time.runUntilDone(f, Duration.ofSeconds(60)), "no answer within a minute");
        return f.join();
    }

    private static String key(int i) {
        return "sip:user" + i + "@closed-port.test";
    }

    private void readAll(List<CompletableFuture<?>> reads) {
        for (int i = 0; i < KEYS; i++) {
            reads.add(live.get(i % live.size()).get(key(i)));
        }
    }

    /** The live nodes that still list {@code gone} among their contacts. */
    private List<String> stillKnowing(KademliaDht gone) {
        return live.stream().filter(n -> n.knownPeers().stream().map(Peer::id)
                .anyMatch(id -> id.equals(gone.self().id()))).map(n -> n.self().id()).toList();
    }

    @ParameterizedTest(name = "host refuses: {0}")
    @ValueSource(booleans = {true, false})
    void aDeadNodeIsEvictedAtTheFirstRefusalButASilentOneOnlyAfterItsWindow(boolean refuse) {
        network.closedPortsRefuse(refuse);
        for (int i = 0; i < 5; i++) {
            start(i);
        }
        time.runFor(Duration.ofSeconds(10));
        Instant expiry = time.clock().instant().plus(Duration.ofHours(1));
        for (int i = 0; i < KEYS; i++) {
            assertTrue(await(live.get(i % live.size()).putIfVersion(key(i), Dht.ABSENT,
                    ("c" + i).getBytes(StandardCharsets.UTF_8), expiry)));
        }
        KademliaDht victim = live.remove(2);
        assertEquals(live.size(), stillKnowing(victim).size(), "every node knows the victim before it dies");
        victim.close();

        // Reads as phones' refreshes would make them: each node asks the victim for some of its keys.
        List<CompletableFuture<?>> reads = new ArrayList<>();
        readAll(reads);
        time.runFor(Duration.ofMillis(1_200));
        if (refuse) {
            assertEquals(List.of(), stillKnowing(victim), "evicted within 1.2 s of the first requests");
        } else {
            assertTrue(!stillKnowing(victim).isEmpty(), "silence alone takes longer than 1.2 s");
        }
        for (int round = 0; round < 5; round++) {
            readAll(reads);
            time.runFor(Duration.ofSeconds(2));
        }
        reads.forEach(r -> assertTrue(r.isDone() && !r.isCompletedExceptionally(), "every read answered"));
        assertEquals(List.of(), stillKnowing(victim), "in the end nobody lists the dead node");
        long writtenOff = live.stream().mapToLong(KademliaDht::peersWrittenOff).sum();
        if (refuse) {
            assertEquals(0, writtenOff, "a refusal is proof, not a timeout verdict");
        } else {
            assertTrue(writtenOff > 0, "silent: written off by timeouts");
        }
    }
}
