package org.p2psip.core.dht;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.Binding;
import org.p2psip.core.location.ContactSpec;
import org.p2psip.core.location.LocationService;
import org.p2psip.core.location.RegisterOutcome;
import org.p2psip.core.location.RegisterRequest;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.Eventually;

/**
 * The promises every DHT backend keeps (DESIGN.md, "The DHT SPI"). A backend
 * module subclasses this in its tests and says how to start a cluster of it;
 * core ships the class in its test-jar.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class DhtContractTest {

    /** A running cluster of the backend under test. */
    protected interface Cluster extends AutoCloseable {

        /** One handle per node, each talking to its own node. */
        List<Dht> nodes();

        /** The clock the nodes measure expiry against. */
        Clock clock();

        /** Lets at least {@code d} pass on {@link #clock()}. */
        void elapse(Duration d);

        @Override
        void close();
    }

    /** Starts {@code size} nodes of the backend, joined into one overlay. */
    protected abstract Cluster startCluster(int size) throws Exception;

    /**
     * A cluster whose expiry runs on {@code clock}, which {@link Cluster#elapse}
     * moves at once; {@code stop} stops every node.
     */
    protected static Cluster onManualClock(List<? extends Dht> nodes, ManualClock clock, Runnable stop) {
        return cluster(nodes, clock, clock::advance, stop);
    }

    /** A cluster on the real clock: {@link Cluster#elapse} waits for the time to pass. */
    protected static Cluster onRealClock(List<? extends Dht> nodes, Clock clock, Runnable stop) {
        return cluster(nodes, clock, d -> {
            Instant until = clock.instant().plus(d);
            Eventually.until(() -> clock.instant().isAfter(until), d.plusSeconds(5), d + " to pass on the clock");
        }, stop);
    }

    private static Cluster cluster(List<? extends Dht> nodes, Clock clock, Consumer<Duration> elapse, Runnable stop) {
        List<Dht> handles = List.copyOf(nodes);
        return new Cluster() {
            @Override
            public List<Dht> nodes() {
                return handles;
            }

            @Override
            public Clock clock() {
                return clock;
            }

            @Override
            public void elapse(Duration d) {
                elapse.accept(d);
            }

            @Override
            public void close() {
                stop.run();
            }
        };
    }

    /** How many nodes the suite's cluster has; distributed backends need at least 3. */
    protected int clusterSize() {
        return 3;
    }

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    protected Cluster cluster;

    @BeforeEach
    void startTheCluster() throws Exception {
        cluster = startCluster(clusterSize());
    }

    @AfterEach
    void stopTheCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void absentKeyReadsEmptyOnEveryNode() {
        for (Dht node : cluster.nodes()) {
            assertTrue(await(node.get(uniqueKey())).isEmpty());
        }
    }

    @Test
    void storedValuesAreCountedByTheNodesThatHoldThem() throws InterruptedException {
        Instant expiry = cluster.clock().instant().plusSeconds(600);
        for (int i = 0; i < 5; i++) {
            assertTrue(await(first().putIfVersion(uniqueKey(), Dht.ABSENT, new byte[] {1}, expiry)));
        }
        // A backend may refresh its count at most once a second; wait for it with a deadline.
        long total = Eventually.atLeast(this::storedOnAllNodes, 5, Duration.ofSeconds(5));
        assertTrue(total >= 5, "the nodes count " + total + " values after 5 were written");
    }

    /** What the nodes that hold values count; a node that holds none (a client) may answer -1. */
    private long storedOnAllNodes() {
        long total = 0;
        int counting = 0;
        for (Dht node : cluster.nodes()) {
            long n = node.storedEntries();
            if (n >= 0) {
                total += n;
                counting++;
            }
        }
        assertTrue(counting > 0, "no node of " + first().backendName() + " can tell what it holds");
        return total;
    }

    @Test
    void valueWrittenThroughOneNodeIsReadThroughEvery() {
        String key = uniqueKey();
        byte[] value = "contact-set".getBytes(StandardCharsets.UTF_8);
        Instant expiry = cluster.clock().instant().plusSeconds(600);
        assertTrue(await(first().putIfVersion(key, Dht.ABSENT, value, expiry)));
        for (Dht node : cluster.nodes()) {
            VersionedValue read = await(node.get(key)).orElseThrow();
            assertArrayEquals(value, read.value());
            assertEquals(expiry.toEpochMilli(), read.expiresAt().toEpochMilli());
        }
    }

    @Test
    void putIfAbsentFailsWhenTheKeyExists() {
        String key = uniqueKey();
        Instant expiry = cluster.clock().instant().plusSeconds(600);
        assertTrue(await(first().putIfVersion(key, Dht.ABSENT, bytes("a"), expiry)));
        assertFalse(await(last().putIfVersion(key, Dht.ABSENT, bytes("b"), expiry)));
        assertArrayEquals(bytes("a"), await(last().get(key)).orElseThrow().value());
    }

    @Test
    void staleVersionIsRefusedAndCurrentVersionAccepted() {
        String key = uniqueKey();
        Instant expiry = cluster.clock().instant().plusSeconds(600);
        assertTrue(await(first().putIfVersion(key, Dht.ABSENT, bytes("v1"), expiry)));
        long v1 = await(first().get(key)).orElseThrow().version();
        assertTrue(await(last().putIfVersion(key, v1, bytes("v2"), expiry)));
        assertFalse(await(first().putIfVersion(key, v1, bytes("lost"), expiry)));
        assertArrayEquals(bytes("v2"), await(first().get(key)).orElseThrow().value());
    }

    @Test
    void everyWriteChangesTheVersion() {
        String key = uniqueKey();
        Instant expiry = cluster.clock().instant().plusSeconds(600);
        Set<Long> seen = new HashSet<>();
        long version = Dht.ABSENT;
        for (int i = 0; i < 5; i++) {
            Dht node = cluster.nodes().get(i % cluster.nodes().size());
            assertTrue(await(node.putIfVersion(key, version, bytes("same"), expiry)));
            version = await(node.get(key)).orElseThrow().version();
            assertTrue(version > Dht.ABSENT);
            assertTrue(seen.add(version), "version " + version + " was handed out twice");
        }
    }

    @Test
    void removeTakesEffectOnlyAtTheNamedVersion() {
        String key = uniqueKey();
        Instant expiry = cluster.clock().instant().plusSeconds(600);
        assertTrue(await(first().putIfVersion(key, Dht.ABSENT, bytes("x"), expiry)));
        long version = await(first().get(key)).orElseThrow().version();
        assertFalse(await(last().removeIfVersion(key, version + 1)));
        assertTrue(await(last().get(key)).isPresent());
        assertTrue(await(last().removeIfVersion(key, version)));
        for (Dht node : cluster.nodes()) {
            assertTrue(await(node.get(key)).isEmpty());
        }
        assertTrue(await(first().putIfVersion(key, Dht.ABSENT, bytes("again"), expiry)));
    }

    @Test
    void expiredValueIsNeverReturnedAndItsKeyCountsAsAbsent() {
        String key = uniqueKey();
        Instant expiry = cluster.clock().instant().plusSeconds(2);
        assertTrue(await(first().putIfVersion(key, Dht.ABSENT, bytes("short"), expiry)));
        Optional<VersionedValue> early = await(last().get(key));
        // On a real clock a slow machine can take the two seconds up by itself; the value must be there only
        // if the read ended before it expired.
        if (cluster.clock().instant().isBefore(expiry)) {
            assertTrue(early.isPresent(), "read before the value expired");
        }
        cluster.elapse(Duration.ofSeconds(3));
        for (Dht node : cluster.nodes()) {
            assertEquals(Optional.empty(), await(node.get(key)).map(v -> new String(v.value())));
        }
        assertTrue(await(last().putIfVersion(key, Dht.ABSENT, bytes("fresh"),
                cluster.clock().instant().plusSeconds(600))));
    }

    @Test
    void storedValueIsACopyOfTheCallersArray() {
        String key = uniqueKey();
        byte[] value = bytes("original");
        assertTrue(await(first().putIfVersion(key, Dht.ABSENT, value, cluster.clock().instant().plusSeconds(60))));
        value[0] = 'X';
        assertArrayEquals(bytes("original"), await(last().get(key)).orElseThrow().value());
    }

    @Test
    void largeValueRoundTrips() {
        String key = uniqueKey();
        byte[] value = new byte[256 * 1024];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) (i * 31);
        }
        assertTrue(await(first().putIfVersion(key, Dht.ABSENT, value, cluster.clock().instant().plusSeconds(60))));
        assertArrayEquals(value, await(last().get(key)).orElseThrow().value());
    }

    @Test
    void placementNamesAMemberAndEveryNodeAgrees() {
        Set<String> members = cluster.nodes().stream().map(n -> n.self().id()).collect(Collectors.toSet());
        assertEquals(cluster.nodes().size(), members.size(), "node ids must be distinct");
        for (int k = 0; k < 20; k++) {
            String key = uniqueKey();
            Set<String> owners = new HashSet<>();
            for (Dht node : cluster.nodes()) {
                Placement p = await(node.placement(key));
                assertTrue(members.contains(p.owner().id()), p.owner().id() + " is not a member");
                assertFalse(p.replicas().contains(p.owner()), "the owner is not its own replica");
                owners.add(p.owner().id());
            }
            assertEquals(1, owners.size(), "nodes disagree on the owner of " + key + ": " + owners);
        }
    }

    /**
     * Whether no two nodes claim one key at once when the overlay is settled;
     * false where every handle shares one store.
     */
    protected boolean ownershipIsExclusive() {
        return true;
    }

    @Test
    void everyNodeComesToKnowAnotherMemberAndNeverNamesItself() {
        Set<String> members = cluster.nodes().stream().map(n -> n.self().id()).collect(Collectors.toSet());
        if (!ownershipIsExclusive()) {
            // Handles on one shared store are not members of anything.
            return;
        }
        Eventually.until(() -> cluster.nodes().stream().allMatch(n -> knowsAnotherMember(n, members)),
                Duration.ofSeconds(30), () -> "every node knowing another member: " + cluster.nodes().stream()
                        .map(n -> n.self().id() + " knows " + n.knownPeers()).toList());
    }

    private static boolean knowsAnotherMember(Dht node, Set<String> members) {
        List<String> known = node.knownPeers().stream().map(Peer::id).toList();
        assertFalse(known.contains(node.self().id()), node.self().id() + " lists itself among " + known);
        return known.stream().anyMatch(id -> members.contains(id));
    }

    @Test
    void ownedRangesClaimEveryKeyAndThePlacementOwnerClaimsIt() {
        List<String> keys = new ArrayList<>();
        for (int k = 0; k < 30; k++) {
            keys.add(uniqueKey());
        }
        Eventually.until(() -> keys.stream().allMatch(this::claimedByItsOwnerAlone), Duration.ofSeconds(30),
                () -> "every key claimed by the node placement names, and only by it: " + claims(keys));
    }

    @Test
    void keysOfOneGroupShareTheirOwner() {
        for (int k = 0; k < 10; k++) {
            String aor = "user" + k + "-" + UUID.randomUUID() + "@example.com";
            String owner = await(first().placement(aor)).owner().id();
            assertEquals(owner, await(last().placement(aor + "#cred")).owner().id(), aor);
            assertEquals(owner, await(first().placement(aor + "#nc#x")).owner().id(), aor);
        }
    }

    private boolean claimedByItsOwnerAlone(String key) {
        String owner = await(first().placement(key)).owner().id();
        long point = KeyPlacement.point(key);
        List<String> claimants = cluster.nodes().stream()
                .filter(n -> n.ownedRanges().map(r -> r.contains(point)).orElse(false))
                .map(n -> n.self().id()).toList();
        return claimants.contains(owner) && (!ownershipIsExclusive() || claimants.size() == 1);
    }

    private String claims(List<String> keys) {
        return cluster.nodes().stream().map(n -> n.self().id() + " owns " + n.ownedRanges().map(KeyRangeSet::format)
                .orElse("?")).collect(Collectors.joining("; ")) + "; first key " + keys.get(0) + " at "
                + Long.toHexString(KeyPlacement.point(keys.get(0)));
    }

    @Test
    void callsOnAClosedNodeFailInsteadOfHanging() {
        Dht node = last();
        node.close();
        node.close();
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> node.get(uniqueKey()).get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        assertInstanceOf(IllegalStateException.class, e.getCause());
    }

    /**
     * The no-lost-update promise at the byte level: increments of one counter
     * from every node at once, each a read followed by a conditional write,
     * retried on conflict. A blind put would lose some.
     */
    @Test
    void concurrentConditionalIncrementsFromEveryNodeLoseNone() throws Exception {
        String key = uniqueKey();
        int perThread = 25;
        int threadsPerNode = 4;
        List<Dht> nodes = cluster.nodes();
        ExecutorService pool = Executors.newFixedThreadPool(nodes.size() * threadsPerNode);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (Dht node : nodes) {
                for (int t = 0; t < threadsPerNode; t++) {
                    done.add(pool.submit(() -> {
                        start.await();
                        for (int i = 0; i < perThread; i++) {
                            increment(node, key);
                        }
                        return null;
                    }));
                }
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(CALL_TIMEOUT.toSeconds() * 4, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        long expected = (long) nodes.size() * threadsPerNode * perThread;
        for (Dht node : nodes) {
            assertEquals(expected, ByteBuffer.wrap(await(node.get(key)).orElseThrow().value()).getLong());
        }
    }

    /**
     * The same promise as the registrar sees it (DESIGN.md): REGISTERs for
     * different contacts of one AOR, arriving at every node at the same
     * instant, all survive.
     */
    @Test
    void simultaneousRegistrationsOfOneAorThroughDifferentNodesAllSurvive() throws Exception {
        AddressOfRecord aor = AddressOfRecord.parse("sip:race-" + UUID.randomUUID() + "@p2psip.test");
        RegistrarPolicy policy = new RegistrarPolicy(60, 3600, 86_400, 1000);
        List<LocationService> services = cluster.nodes().stream()
                .map(n -> new LocationService(n, policy, cluster.clock())).toList();
        int perNode = 10;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(services.size() * perNode);
        List<Future<RegisterOutcome>> outcomes = new ArrayList<>();
        try {
            for (int n = 0; n < services.size(); n++) {
                for (int i = 0; i < perNode; i++) {
                    LocationService service = services.get(n);
                    String contact = "sip:ua" + n + "-" + i + "@127.0.0.1:" + (20000 + n * 100 + i);
                    RegisterRequest request = new RegisterRequest(aor, List.of(ContactSpec.of(contact)),
                            OptionalLong.of(600), "call-" + n + "-" + i, 1, List.of(),
                            new HostPort("127.0.0.1", 20000 + n * 100 + i), "UDP");
                    outcomes.add(pool.submit(() -> {
                        start.await();
                        return service.register(request).get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                    }));
                }
            }
            start.countDown();
            for (Future<RegisterOutcome> f : outcomes) {
                assertTrue(f.get(CALL_TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS) instanceof RegisterOutcome.Accepted);
            }
        } finally {
            pool.shutdownNow();
        }
        for (LocationService service : services) {
            List<Binding> bindings = await(service.lookup(aor));
            assertEquals(services.size() * perNode, bindings.size(),
                    "lost registrations: " + bindings.stream().map(Binding::contact).toList());
        }
    }

    private void increment(Dht node, String key) {
        for (int attempt = 0; attempt < 10_000; attempt++) {
            Optional<VersionedValue> current = await(node.get(key));
            long value = current.map(v -> ByteBuffer.wrap(v.value()).getLong()).orElse(0L);
            long version = current.map(VersionedValue::version).orElse(Dht.ABSENT);
            byte[] next = ByteBuffer.allocate(Long.BYTES).putLong(value + 1).array();
            Instant expiry = cluster.clock().instant().plusSeconds(3600);
            if (await(node.putIfVersion(key, version, next, expiry))) {
                return;
            }
        }
        throw new AssertionError("increment never committed");
    }

    protected Dht first() {
        return cluster.nodes().get(0);
    }

    protected Dht last() {
        return cluster.nodes().get(cluster.nodes().size() - 1);
    }

    protected static String uniqueKey() {
        return "key-" + UUID.randomUUID();
    }

    protected static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    protected static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("DHT call failed: " + e, e);
        }
    }
}
