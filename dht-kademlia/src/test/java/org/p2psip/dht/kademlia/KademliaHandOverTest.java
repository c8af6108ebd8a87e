package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.OverlayRuntime;
import org.p2psip.core.overlay.simulated.SimulatedOverlayNetwork;
import org.p2psip.core.overlay.simulated.VirtualTime;

/**
 * Keys follow the membership, not the clock: six nodes on a simulated
 * network with two copies of every key and the default republish interval
 * (an hour, beyond the test's span). A quiet overlay sends no STORE; a node
 * that joins ends up holding the keys it is now among the two closest to;
 * and once a holder is dead and found to be, its keys regain their second
 * copy on the node that moved in behind it. What no table notices — a node
 * back without its data before anyone wrote it off — is left to the slow
 * republish.
 */
class KademliaHandOverTest {

    private static final int REPLICAS = 2;
    private static final int KEYS = 80;
    private static final Duration SETTLE = Duration.ofSeconds(30);

    private record Member(HostPort address, KademliaDht dht) {
        BigInteger id() {
            return dht.contact().id();
        }
    }

    private final VirtualTime time = new VirtualTime();
    private final SimulatedOverlayNetwork network = new SimulatedOverlayNetwork(time, 11,
            SimulatedOverlayNetwork.Semantics.DATAGRAM);
    private final List<Member> live = new ArrayList<>();
    private int started;

    private Member start() {
        return start(new HostPort("10.8.0." + started, 4000), Map.of());
    }

    /** Starts a node at {@code address} (its id is SHA-1 of it), joining through the first live node. */
    private Member start(HostPort address, Map<String, String> options) {
        int index = started++;
        OverlayRuntime runtime = new OverlayRuntime(time.executor("kademlia-" + index), time.clock(), time::nanos,
                1_000 + index);
        List<HostPort> seeds = live.isEmpty() ? List.of() : List.of(live.get(0).address());
        KademliaDht dht = new KademliaDht(new Contact(IdSpace.SHA1.idOf(address.toString()), address,
                Optional.of(address)), runtime, REPLICAS, KademliaOptions.parse(options));
        dht.attach(network.bind(address, dht::handle));
        dht.join(seeds).thenRun(dht::startMaintenance);
        Member m = new Member(address, dht);
        live.add(m);
        time.runFor(Duration.ofSeconds(1));
        return m;
    }

    /** Writes every key once through the live nodes in turn; returns the versions written. */
    private List<Long> writeKeys() {
        Instant expiry = time.clock().instant().plus(Duration.ofHours(6));
        List<Long> versions = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            Dht via = live.get(i % live.size()).dht();
            assertTrue(await(via.putIfVersion(key(i), Dht.ABSENT, ("contact-" + i).getBytes(StandardCharsets.UTF_8),
                    expiry)));
            versions.add(await(via.get(key(i))).map(VersionedValue::version).orElseThrow());
        }
        return versions;
    }

    private long keysHeldBy(Member m) {
        return IntStream.range(0, KEYS).filter(i -> holdersOf(key(i)).contains(m)).count();
    }

    private <T> T await(CompletableFuture<T> f) {
        assertTrue(time.runUntilDone(f, Duration.ofSeconds(60)), "no answer within a minute");
        return f.join();
    }

    private static String key(int i) {
        return "sip:user" + i + "@handover.test";
    }

    /** The live nodes that ought to hold {@code key}: its {@link #REPLICAS} closest by XOR. */
    private List<Member> holdersOf(String key) {
        BigInteger id = IdSpace.SHA1.idOf(key);
        return live.stream().sorted(Comparator.comparing(m -> m.id().xor(id))).limit(REPLICAS).toList();
    }

    /** The keys some live node that ought to hold them does not hold at {@code version}. */
    private List<String> misplaced(List<Long> versions) {
        List<String> missing = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            for (Member m : holdersOf(key(i))) {
                Optional<StoredValue> copy = await(m.dht().copyOf(key(i)));
                if (copy.isEmpty() || copy.get().version() != versions.get(i)) {
                    missing.add(key(i) + " at " + m.address());
                }
            }
        }
        return missing;
    }

    private long storesSent() {
        return live.stream().mapToLong(m -> m.dht().republishStores()).sum();
    }

    @Test
    void aJoinerGetsItsKeysAndADeadHoldersKeysRegainTheirSecondCopyWithoutTheClock() {
        for (int i = 0; i < 6; i++) {
            start();
        }
        time.runFor(SETTLE);
        List<Long> versions = writeKeys();
        assertEquals(List.of(), misplaced(versions), "written to the two closest nodes");

        long quiet = storesSent();
        time.runFor(Duration.ofMinutes(5));
        assertEquals(quiet, storesSent(), "an overlay whose membership holds still republishes nothing");

        Member joiner = start();
        time.runFor(SETTLE);
        long joinersKeys = keysHeldBy(joiner);
        assertTrue(joinersKeys > 0, "the joiner is among the closest nodes of some keys");
        assertEquals(List.of(), misplaced(versions), "after the join");
        long afterJoin = storesSent() - quiet;
        assertTrue(afterJoin >= joinersKeys && afterJoin <= 2 * joinersKeys,
                afterJoin + " stores for the " + joinersKeys + " keys the joiner now holds");
        long messages = live.stream().mapToLong(m -> m.dht().repairMessages()).sum();
        assertTrue(messages * 3 <= afterJoin, "the keys went in " + messages + " REPAIRs, not one message each");

        // The node holding the most keys dies; reads (as phones' refreshes would) run into it until it is
        // written off, and its keys move on.
        Member victim = live.stream().max(Comparator.comparingLong(this::keysHeldBy)).orElseThrow();
        live.remove(victim);
        victim.dht().close();
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < KEYS; i++) {
                await(live.get(i % live.size()).dht().get(key(i)));
            }
            time.runFor(Duration.ofSeconds(2));
        }
        time.runFor(SETTLE);
        assertEquals(List.of(), misplaced(versions), "after a holder died");
    }

    @Test
    void aJoinerThatDoesNotKnowRepairGetsItsKeysOneStoreAtATime() {
        for (int i = 0; i < 6; i++) {
            start();
        }
        time.runFor(SETTLE);
        List<Long> versions = writeKeys();

        // A node of the previous release: it answers REPAIR, a message it does not know, with an error.
        HostPort address = new HostPort("10.8.0." + started, 4000);
        OverlayRuntime runtime = new OverlayRuntime(time.executor("kademlia-old"), time.clock(), time::nanos, 999);
        KademliaDht old = new KademliaDht(new Contact(IdSpace.SHA1.idOf(address.toString()), address,
                Optional.of(address)), runtime, REPLICAS, KademliaOptions.parse(Map.of()));
        old.attach(network.bind(address, (type, payload) -> type == KademliaWire.REPAIR
                ? CompletableFuture.failedFuture(new IllegalArgumentException("unknown kademlia message " + type))
                : old.handle(type, payload)));
        started++;
        old.join(List.of(live.get(0).address())).thenRun(old::startMaintenance);
        Member joiner = new Member(address, old);
        live.add(joiner);
        time.runFor(SETTLE);

        assertTrue(keysHeldBy(joiner) > 0, "the joiner is among the closest nodes of some keys");
        assertEquals(List.of(), misplaced(versions), "every key reached the joiner all the same");
    }

    @Test
    void aHolderRestartedEmptyBeforeAnyoneNoticedGetsItsCopiesBackFromTheSlowRepublish() {
        // Two minutes: the first round comes after the restart has settled.
        Map<String, String> slow = Map.of("republish-ms", "120000");
        for (int i = 0; i < 6; i++) {
            start(new HostPort("10.8.0." + started, 4000), slow);
        }
        time.runFor(SETTLE);
        List<Long> versions = writeKeys();
        assertEquals(List.of(), misplaced(versions));

        // Back at once on the same address, so with the same id, and without its data: no table sees a change.
        Member victim = live.stream().filter(m -> m != live.get(0))
                .max(Comparator.comparingLong(this::keysHeldBy)).orElseThrow();
        live.remove(victim);
        victim.dht().close();
        Member back = start(victim.address(), slow);
        time.runFor(SETTLE);
        assertEquals(keysHeldBy(back), misplaced(versions).size(), "no hand-over: nobody saw the node go");

        time.runFor(Duration.ofMinutes(5));
        assertEquals(List.of(), misplaced(versions), "the republish safety net gave them back");
    }
}
