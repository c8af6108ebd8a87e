package org.p2psip.dht.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.VersionedValue;

/**
 * With {@code replicas 2}, a member that dies without a word (no graceful
 * hand-over) takes no acknowledged value with it.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HazelcastDhtCrashTest {

    private static final int KEYS = 500;

    @Test
    void abruptlyTerminatedMemberLosesNoAcknowledgedValue() {
        Clock clock = Clock.systemUTC();
        try (LoopbackMembers members = new LoopbackMembers(2, clock).start(3)) {
            List<HazelcastDht> nodes = members.nodes();
            Instant expiry = clock.instant().plusSeconds(600);
            // Every key written once, and every other key written again, through all three
            // nodes; the victim owns and backs up about a third of them each.
            List<CompletableFuture<Boolean>> writes = new ArrayList<>();
            for (int i = 0; i < KEYS; i++) {
                writes.add(nodes.get(i % 3).putIfVersion(key(i), Dht.ABSENT, counter(1), expiry));
            }
            writes.forEach(w -> assertTrue(await(w)));
            writes.clear();
            for (int i = 0; i < KEYS; i += 2) {
                Dht node = nodes.get((i + 1) % 3);
                long version = await(node.get(key(i))).orElseThrow().version();
                writes.add(node.putIfVersion(key(i), version, counter(2), expiry));
            }
            writes.forEach(w -> assertTrue(await(w)));

            HazelcastDht victim = nodes.get(2);
            victim.hazelcast().getLifecycleService().terminate();
            List<HazelcastDht> survivors = nodes.subList(0, 2);
            LoopbackMembers.waitUntil(() -> survivors.stream()
                            .allMatch(n -> n.hazelcast().getCluster().getMembers().size() == 2),
                    Duration.ofSeconds(30), "the survivors to drop the dead member");

            for (HazelcastDht survivor : survivors) {
                List<CompletableFuture<Optional<VersionedValue>>> reads = new ArrayList<>();
                for (int i = 0; i < KEYS; i++) {
                    reads.add(survivor.get(key(i)));
                }
                int lost = 0;
                for (int i = 0; i < KEYS; i++) {
                    Optional<VersionedValue> read = await(reads.get(i));
                    long expected = i % 2 == 0 ? 2 : 1;
                    if (read.isEmpty() || ByteBuffer.wrap(read.get().value()).getLong() != expected) {
                        lost++;
                    }
                }
                assertEquals(0, lost, "values lost or rolled back, read through " + survivor.self().id());
            }
        }
    }

    private static String key(int i) {
        return "sip:user" + i + "@crash.test";
    }

    private static byte[] counter(long n) {
        return ByteBuffer.allocate(Long.BYTES).putLong(n).array();
    }

    private static <T> T await(CompletableFuture<T> future) {
        return future.orTimeout(60, TimeUnit.SECONDS).join();
    }
}
