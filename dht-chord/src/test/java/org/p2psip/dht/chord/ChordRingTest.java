package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.VersionedValue;

/**
 * Sixteen-node rings on 127.0.0.1, every node in this JVM with its own
 * transport, port and owner thread. A crash is {@link ChordDht#crash()}: the
 * owner thread stops and the sockets close with no goodbye, which is what
 * peers see of a SIGKILLed process.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ChordRingTest {

    private static final int SIZE = 16;
    private LoopbackRing ring;

    @AfterEach
    void stop() {
        if (ring != null) {
            ring.close();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("DHT call failed: " + e, e);
        }
    }

    /** Waits for the ideal ring, asserting Zave's invariants at every look on the way. */
    private void convergeCheckingInvariants() {
        LoopbackRing.waitUntil(() -> {
            List<RingState> snap = ring.snapshots();
            List<String> violations = RingInvariants.violations(snap);
            assertEquals(List.of(), violations, "invariants while converging");
            return RingInvariants.idealViolations(snap).isEmpty();
        }, LoopbackRing.CONVERGE, () -> "the ideal ring: " + RingInvariants.idealViolations(ring.snapshots()));
    }

    private Map<String, byte[]> writeKeys(int count, String prefix) {
        Map<String, byte[]> written = new LinkedHashMap<>();
        Instant expiry = Instant.now().plusSeconds(3600);
        for (int i = 0; i < count; i++) {
            String key = prefix + "-" + i;
            byte[] value = bytes("value of " + key);
            Dht via = ring.nodes().get(i % ring.nodes().size());
            assertTrue(await(via.putIfVersion(key, Dht.ABSENT, value, expiry)), key);
            written.put(key, value);
        }
        return written;
    }

    private void assertAllReadable(Map<String, byte[]> written) {
        for (ChordDht node : List.of(ring.nodes().get(0), ring.nodes().get(ring.nodes().size() - 1))) {
            for (Map.Entry<String, byte[]> e : written.entrySet()) {
                Optional<VersionedValue> read = await(node.get(e.getKey()));
                assertTrue(read.isPresent(), "lost " + e.getKey());
                assertArrayEquals(e.getValue(), read.get().value(), e.getKey());
            }
        }
    }

    @Test
    void joinsGracefulLeavesAndCrashesKeepTheRingAndTheValues() {
        ring = new LoopbackRing(2, Clock.systemUTC()).start(SIZE);
        Map<String, byte[]> written = writeKeys(150, "churn");

        ring.add();
        ring.add();
        convergeCheckingInvariants();
        assertAllReadable(written);

        ring.leave(ring.nodes().get(3));
        ring.leave(ring.nodes().get(9));
        convergeCheckingInvariants();
        assertAllReadable(written);

        ring.crash(ring.nodes().get(5));
        convergeCheckingInvariants();
        ring.crash(ring.nodes().get(11));
        convergeCheckingInvariants();
        assertEquals(SIZE - 2, ring.nodes().size());
        assertAllReadable(written);

        LookupStats.Snapshot hops = ring.nodes().get(0).lookupStats();
        assertTrue(hops.lookups() > 0 && hops.averageHops() <= 4,
                "a 16-node ring needs about log2(16)/2 hops, not " + hops.averageHops());
    }

    @Test
    void withThreeReplicasKillingTwoAdjacentNodesAtOnceLosesNoAcknowledgedValue() {
        ring = new LoopbackRing(3, Clock.systemUTC()).start(SIZE);
        Map<String, byte[]> written = writeKeys(200, "durable");
        // The worst pair: a node and its successor, i.e. the owner and the first replica of some keys.
        List<ChordDht> byId = new ArrayList<>(ring.nodes());
        byId.sort(Comparator.comparing(n -> n.node().id()));
        ChordDht victim = byId.get(4);
        ChordDht next = byId.get(5);
        assertTrue(victim.storedValues() > 0 && next.storedValues() > 0, "the victims held values");
        ring.crash(victim);
        ring.crash(next);
        convergeCheckingInvariants();
        assertAllReadable(written);
        // And the survivors are back to three copies: the next pair to fail loses nothing either.
        byId.removeAll(List.of(victim, next));
        LoopbackRing.waitUntil(() -> ring.nodes().stream().mapToInt(ChordDht::storedValues).sum() >= 3 * 200,
                Duration.ofSeconds(20), () -> "re-replication to three copies");
        ring.crash(byId.get(4));
        ring.crash(byId.get(5));
        convergeCheckingInvariants();
        assertAllReadable(written);
    }
}
