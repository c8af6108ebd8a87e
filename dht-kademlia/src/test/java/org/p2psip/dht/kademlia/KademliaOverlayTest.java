package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.Placement;
import org.p2psip.core.dht.VersionedValue;

/**
 * Eighteen nodes in one JVM on 127.0.0.1 over UDP with three copies of every
 * value: two nodes join a running overlay, then the owner and first replica
 * of a key — the two nodes closest to it — crash at once, and no
 * acknowledged value is lost or rolled back; writes keep working.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class KademliaOverlayTest {

    private final LoopbackOverlay overlay = new LoopbackOverlay(3, Clock.systemUTC());

    @AfterEach
    void stop() {
        overlay.close();
    }

    private static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("DHT call failed: " + e, e);
        }
    }

    @Test
    void joinsAndTwoSimultaneousCrashesOfTheClosestNodesLoseNoAcknowledgedValue() {
        overlay.start(16);
        overlay.add();
        overlay.add();
        overlay.awaitFullTables();
        List<KademliaDht> nodes = overlay.nodes();
        Instant expiry = Instant.now().plusSeconds(600);
        Map<String, byte[]> written = new HashMap<>();
        List<CompletableFuture<Boolean>> writes = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            String key = "sip:user" + i + "@kademlia.test";
            byte[] value = ("contact-" + i).getBytes(StandardCharsets.UTF_8);
            keys.add(key);
            written.put(key, value);
            writes.add(nodes.get(i % nodes.size()).putIfVersion(key, Dht.ABSENT, value, expiry));
        }
        writes.forEach(w -> assertTrue(await(w), "a fresh key must be writable"));

        // The two nodes closest to the first key: its owner and first replica.
        Placement placement = await(nodes.get(5).placement(keys.get(0)));
        assertEquals(2, placement.replicas().size(), "three copies: the owner and two replicas");
        List<KademliaDht> victims = nodes.stream().filter(n -> n.self().equals(placement.owner())
                || n.self().equals(placement.replicas().get(0))).toList();
        assertEquals(2, victims.size());
        victims.forEach(overlay::crash);

        KademliaDht reader = overlay.nodes().get(3);
        for (String key : keys) {
            VersionedValue v = await(reader.get(key)).orElseThrow(() -> new AssertionError(key + " was lost"));
            assertArrayEquals(written.get(key), v.value(), key + " changed");
        }
        // The survivors keep accepting conditional writes for the keys the crashed nodes coordinated.
        String first = keys.get(0);
        VersionedValue before = await(overlay.nodes().get(0).get(first)).orElseThrow();
        assertTrue(await(overlay.nodes().get(1).putIfVersion(first, before.version(), "moved".getBytes(
                StandardCharsets.UTF_8), expiry)));
        assertTrue(!await(overlay.nodes().get(2).putIfVersion(first, before.version(), "stale".getBytes(
                StandardCharsets.UTF_8), expiry)), "a write against the old version must be refused");
        assertEquals("moved", new String(await(overlay.nodes().get(7).get(first)).orElseThrow().value(),
                StandardCharsets.UTF_8));

        KademliaDht.LookupMetrics metrics = reader.lookupMetrics();
        assertTrue(metrics.lookups() >= keys.size());
        assertTrue(metrics.meanRounds() >= 1 && metrics.maxRounds() <= 6,
                "18 nodes need few rounds per lookup: " + metrics);
    }
}
