package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.KeyRangeSet;
import org.p2psip.core.dht.VersionedValue;

/**
 * A node that joins holding its share of the keys back (a node warming up)
 * is a client of the overlay until it claims its share: no peer puts it in
 * its table, it holds and claims no key, and it reads and writes through
 * the others; once it claims, the nodes closest to it learn of it and hand
 * it its keys.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class KademliaHeldShareTest {

    private static final int KEYS = 200;

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

    @Test
    void aJoinerHoldingItsShareIsNoHolderUntilItClaimsIt() {
        overlay.start(4);
        List<KademliaDht> members = List.copyOf(overlay.nodes());
        Instant expiry = Instant.now().plusSeconds(3600);
        for (int i = 0; i < KEYS; i++) {
            assertTrue(await(members.get(i % 4).putIfVersion("held-" + i, Dht.ABSENT, bytes("v" + i), expiry)));
        }
        KademliaDht joiner = overlay.addHoldingShare();
        String joinerId = joiner.self().id();

        long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        int k = KEYS;
        while (System.nanoTime() < until) {
            for (KademliaDht m : members) {
                assertTrue(m.knownPeers().stream().noneMatch(p -> p.id().equals(joinerId)),
                        "a member put the joiner in its table");
            }
            assertEquals(0.0, joiner.ownedRanges().map(KeyRangeSet::share).orElse(0.0), "the joiner claims keys");
            assertTrue(await(joiner.putIfVersion("held-" + k, Dht.ABSENT, bytes("v" + k), expiry)));
            k++;
        }
        for (int i = 0; i < k; i++) {
            assertTrue(await(joiner.copyOf("held-" + i)).isEmpty(), "the joiner holds held-" + i);
            Optional<VersionedValue> read = await(joiner.get("held-" + i));
            assertArrayEquals(bytes("v" + i), read.orElseThrow(() -> new AssertionError("unreadable")).value());
        }

        await(joiner.claimShare());
        int written = k;
        LoopbackOverlay.await(() -> members.stream().allMatch(m -> m.knownPeers().stream()
                        .anyMatch(p -> p.id().equals(joinerId))), Duration.ofSeconds(30),
                "the members did not learn of the joiner");
        LoopbackOverlay.await(() -> joiner.ownedRanges().map(KeyRangeSet::share).orElse(0.0) > 0,
                Duration.ofSeconds(30), "the joiner claims no keys");
        LoopbackOverlay.await(() -> heldByJoiner(joiner, written) > 0, Duration.ofSeconds(30),
                "the joiner was handed none of its keys");
        for (int i = 0; i < written; i++) {
            Optional<VersionedValue> read = await(members.get(i % 4).get("held-" + i));
            assertArrayEquals(bytes("v" + i), read.orElseThrow(() -> new AssertionError("lost held-")).value());
        }
    }

    private static long heldByJoiner(KademliaDht joiner, int keys) {
        long held = 0;
        for (int i = 0; i < keys; i++) {
            if (await(joiner.copyOf("held-" + i)).isPresent()) {
                held++;
            }
        }
        return held;
    }
}
