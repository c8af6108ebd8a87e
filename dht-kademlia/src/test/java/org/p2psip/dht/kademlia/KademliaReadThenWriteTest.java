package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.dht.Dht;

/**
 * A registrar reads a key and then writes it conditionally. When the node
 * it asks is the key's coordinator, the read has already asked the key's
 * closest nodes for their copies, so the compare rests on that read rather
 * than a second lookup; unless a write this node coordinated has changed
 * the key in between, when the stale read must not let a lost update
 * through.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class KademliaReadThenWriteTest {

    private static final int KEYS = 20;

    private final LoopbackOverlay overlay = new LoopbackOverlay(2, Clock.systemUTC());

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

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private KademliaDht coordinatorOf(String key) {
        String id = await(overlay.nodes().get(0).placement(key)).owner().id();
        return overlay.nodes().stream().filter(n -> n.self().id().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError("no node is " + id));
    }

    private static long lookups(KademliaDht n) {
        return n.lookupMetrics().lookups();
    }

    @Test
    void aWriteRightAfterTheCoordinatorsOwnReadTakesNoSecondLookup() {
        overlay.start(4);
        Instant expiry = Instant.now().plusSeconds(3600);
        long extra = 0;
        for (int i = 0; i < KEYS; i++) {
            String key = "rw-" + i;
            KademliaDht coordinator = coordinatorOf(key);
            long before = lookups(coordinator);
            assertTrue(await(coordinator.get(key)).isEmpty());
            assertTrue(await(coordinator.putIfVersion(key, Dht.ABSENT, bytes("v" + i), expiry)));
            // The read is one lookup; the write before this change cost a second. Maintenance may add a few.
            extra += lookups(coordinator) - before - 1;
        }
        assertTrue(extra < KEYS / 2, "lookups beyond the reads, over " + KEYS + " read-then-writes: " + extra);
        for (int i = 0; i < KEYS; i++) {
            assertArrayEquals(bytes("v" + i), await(overlay.nodes().get(i % 4).get("rw-" + i)).orElseThrow().value());
        }
    }

    @Test
    void aReadOvertakenByAWriteThisNodeCoordinatedIsNotTrusted() {
        overlay.start(4);
        Instant expiry = Instant.now().plusSeconds(3600);
        String key = "overtaken";
        KademliaDht coordinator = coordinatorOf(key);
        KademliaDht other = overlay.nodes().stream().filter(n -> n != coordinator).findFirst().orElseThrow();

        assertTrue(await(coordinator.get(key)).isEmpty());
        // Another writer gets in between the read and the write: its write goes through the same coordinator.
        assertTrue(await(other.putIfVersion(key, Dht.ABSENT, bytes("first"), expiry)));
        assertFalse(await(coordinator.putIfVersion(key, Dht.ABSENT, bytes("second"), expiry)),
                "a write on a read that a later write overtook was taken");
        assertArrayEquals(bytes("first"), await(other.get(key)).orElseThrow().value());
    }
}
