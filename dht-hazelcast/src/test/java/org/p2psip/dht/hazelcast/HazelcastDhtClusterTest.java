package org.p2psip.dht.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.hazelcast.spi.impl.SerializationServiceSupport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.Placement;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.net.HostPort;

/** What the contract suite does not cover, on one shared three-member cluster with two copies per key. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HazelcastDhtClusterTest {

    private final Clock clock = Clock.systemUTC();
    private LoopbackMembers members;

    @BeforeAll
    void startCluster() {
        members = new LoopbackMembers(2, clock).start(3);
    }

    @AfterAll
    void stopCluster() {
        if (members != null) {
            members.close();
        }
    }

    @Test
    void placementNamesTheOwnersAndBackupsSipAddresses() {
        Map<String, Peer> byId = new HashMap<>();
        for (HazelcastDht node : members.nodes()) {
            assertTrue(node.self().sip().isPresent());
            byId.put(node.self().id(), node.self());
        }
        for (int k = 0; k < 50; k++) {
            String key = "aor-" + UUID.randomUUID();
            Placement placement = await(members.nodes().get(k % 3).placement(key));
            assertEquals(byId.get(placement.owner().id()), placement.owner(), "owner " + placement.owner());
            assertEquals(1, placement.replicas().size(), "replicas 2 means one backup: " + placement);
            Peer backup = placement.replicas().get(0);
            assertEquals(byId.get(backup.id()), backup, "backup " + backup);
            assertFalse(backup.id().equals(placement.owner().id()));
        }
    }

    @Test
    void theOwnerReportedIsTheMemberThatHoldsTheKey() {
        String key = "aor-" + UUID.randomUUID();
        assertTrue(await(members.nodes().get(0).putIfVersion(key, Dht.ABSENT, bytes("x"), inAMinute())));
        String owner = await(members.nodes().get(1).placement(key)).owner().id();
        for (HazelcastDht node : members.nodes()) {
            boolean holdsIt = node.hazelcast().getMap(HazelcastDht.MAP_NAME).localKeySet().contains(node.placed(key));
            assertEquals(node.self().id().equals(owner), holdsIt, node.self().id() + " vs owner " + owner);
        }
    }

    @Test
    void valuesAndOperationsTravelInTheCompactWireFormat() {
        var serialization = ((SerializationServiceSupport) members.nodes().get(0).hazelcast()).getSerializationService();
        for (Object wire : List.of(new StoredValue(bytes("v"), 7, 9),
                new PutIfVersion(1, bytes("v"), 2, 3, 4), new RemoveIfVersion(1, 2), new PlacedKey("a@b", 17))) {
            assertEquals(WireSerializer.TYPE_ID, serialization.toData(wire).getType(), wire.getClass().getName());
            assertEquals(wire.toString().replaceAll("\\[B@\\w+", ""),
                    serialization.toObject(serialization.toData(wire)).toString().replaceAll("\\[B@\\w+", ""));
        }
    }

    @Test
    void aClientNodeReadsAndWritesTheMembersValues() {
        HostPort seed = LoopbackMembers.clientEndpointOf(members.nodes().get(1));
        DhtConfig config = new DhtConfig(new HostPort(LoopbackMembers.HOST, LoopbackMembers.freePort()),
                Optional.empty(), List.of(seed), 2, clock, Map.of("client", "true"));
        try (HazelcastDht client = LoopbackMembers.await(new HazelcastDhtProvider().start(config))) {
            assertFalse(client.isMember());
            String key = "aor-" + UUID.randomUUID();
            assertTrue(await(client.putIfVersion(key, Dht.ABSENT, bytes("from client"), inAMinute())));
            VersionedValue read = await(members.nodes().get(2).get(key)).orElseThrow();
            assertArrayEquals(bytes("from client"), read.value());
            assertTrue(await(members.nodes().get(0).putIfVersion(key, read.version(), bytes("from member"),
                    inAMinute())));
            assertArrayEquals(bytes("from member"), await(client.get(key)).orElseThrow().value());
            assertFalse(await(client.putIfVersion(key, read.version(), bytes("stale"), inAMinute())));
            assertEquals(await(members.nodes().get(0).placement(key)).owner(), await(client.placement(key)).owner());
        }
    }

    @Test
    void aClosedNodeFailsCallsInsteadOfHanging() {
        DhtConfig config = new DhtConfig(new HostPort(LoopbackMembers.HOST, LoopbackMembers.freePort()),
                Optional.empty(), List.of(LoopbackMembers.clientEndpointOf(members.nodes().get(0))), 2, clock,
                Map.of("client", "true"));
        HazelcastDht client = LoopbackMembers.await(new HazelcastDhtProvider().start(config));
        client.close();
        client.close();
        CompletableFuture<Optional<VersionedValue>> read = client.get("anything");
        assertTrue(read.isCompletedExceptionally());
    }

    private Instant inAMinute() {
        return clock.instant().plusSeconds(60);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static <T> T await(CompletableFuture<T> future) {
        return future.orTimeout(30, TimeUnit.SECONDS).join();
    }
}
