package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.KeyRangeSet;
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
    /** How long an invariant may stay violated while a step is in progress (the ring stabilizes every 50 ms). */
    private static final Duration LASTING = Duration.ofMillis(500);
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

    /**
     * Waits for the ideal ring, asserting Zave's invariants on the way. Her
     * operations are atomic; here they are not. The nodes are looked at one
     * after another while the ring moves, so one look can mix a node's state
     * before a step with its neighbour's after it; and a join is a lookup
     * followed, a round trip later, by the pointer change, so a node joining
     * the same gap as another may take a successor past it and keep it until
     * its next stabilize round. A violation therefore counts when it lasts
     * longer than {@link #LASTING}, ten stabilize periods.
     */
    private void convergeCheckingInvariants() {
        Map<String, Long> seenSince = new java.util.HashMap<>();
        LoopbackRing.waitUntil(() -> {
            List<RingState> snap = ring.snapshots();
            List<String> violations = RingInvariants.violations(snap);
            long now = System.nanoTime();
            seenSince.keySet().retainAll(violations);
            violations.forEach(v -> seenSince.putIfAbsent(v, now));
            List<String> lasting = seenSince.entrySet().stream()
                    .filter(e -> now - e.getValue() > LASTING.toNanos()).map(Map.Entry::getKey).toList();
            assertEquals(List.of(), lasting, "invariants while converging");
            return violations.isEmpty() && RingInvariants.idealViolations(snap).isEmpty();
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

    private void awaitCopies(Set<String> keys, int copies) {
        LoopbackRing.waitUntil(() -> keys.stream().allMatch(k -> copiesOf(k) >= copies), LoopbackRing.CONVERGE,
                () -> "every key on " + copies + " nodes; fewer: " + keys.stream()
                        .filter(k -> copiesOf(k) < copies).map(k -> k + "=" + copiesOf(k)).toList());
    }

    private long copiesOf(String key) {
        return ring.nodes().stream().filter(n -> n.holdsLive(key)).count();
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
        // Two copies survive one crash, not two in a row: the second waits
        // until the ring has made its copies again, as an operator waits
        // before taking the next node down.
        awaitCopies(written.keySet(), 2);
        ring.crash(ring.nodes().get(11));
        convergeCheckingInvariants();
        assertEquals(SIZE - 2, ring.nodes().size());
        assertAllReadable(written);

        LookupStats.Snapshot hops = ring.nodes().get(0).lookupStats();
        assertTrue(hops.lookups() > 0 && hops.averageHops() <= 4,
                "a 16-node ring needs about log2(16)/2 hops, not " + hops.averageHops());
    }

    /**
     * A joiner's range holds several fetch pages' worth of entries: it moves
     * page by page, and every value is still readable, at its owner, after.
     */
    @Test
    void aJoinerTakesOverARangeOfManyPages() {
        ring = new LoopbackRing(2, Clock.systemUTC()).start(2);
        byte[] big = new byte[4096];
        Instant expiry = Instant.now().plusSeconds(3600);
        Map<String, byte[]> written = new LinkedHashMap<>();
        for (int i = 0; i < 1000; i++) {
            String key = "paged-" + i;
            byte[] value = big.clone();
            value[0] = (byte) i;
            value[1] = (byte) (i >> 8);
            assertTrue(await(ring.nodes().get(i % 2).putIfVersion(key, Dht.ABSENT, value, expiry)), key);
            written.put(key, value);
        }
        // In the middle of the wider gap, so the joiner takes at least a quarter of the keys wherever the
        // first two nodes landed (their ids come from their ports).
        IdSpace space = IdSpace.SHA1;
        BigInteger a = ring.nodes().get(0).node().id();
        BigInteger b = ring.nodes().get(1).node().id();
        BigInteger from = space.distance(a, b).compareTo(space.distance(b, a)) >= 0 ? a : b;
        BigInteger middle = from.add(space.distance(from, from.equals(a) ? b : a).shiftRight(1)).mod(space.size());
        ChordDht joiner = ring.add(Map.of("node-id", middle.toString(16)));
        convergeCheckingInvariants();
        LoopbackRing.waitUntil(() -> joiner.ownedRanges().map(KeyRangeSet::share).orElse(0.0) > 0, LoopbackRing.CONVERGE,
                () -> "the joiner serves nothing");
        long joinersBytes = (long) joiner.storedValues() * big.length;
        assertTrue(joinersBytes > 2 * KeyMover.FRAME_BYTES, "the joiner holds " + joiner.storedValues()
                + " values, too few to have come in several pages");
        for (Map.Entry<String, byte[]> e : written.entrySet()) {
            Optional<VersionedValue> read = await(joiner.get(e.getKey()));
            assertTrue(read.isPresent(), "lost " + e.getKey());
            assertArrayEquals(e.getValue(), read.get().value(), e.getKey());
        }
    }

    /**
     * A joiner holding its share back (a node warming up) is a client of
     * the ring: for two seconds, forty stabilize rounds, it serves no key and
     * no member takes it for a predecessor, while it reads and writes every
     * key through the ring. Once it claims its share it takes over its range,
     * the keys written meanwhile included.
     */
    @Test
    void aJoinerHoldingItsShareServesNothingUntilItClaimsIt() throws Exception {
        ring = new LoopbackRing(2, Clock.systemUTC()).start(2);
        Instant expiry = Instant.now().plusSeconds(3600);
        for (int i = 0; i < 200; i++) {
            assertTrue(await(ring.nodes().get(i % 2).putIfVersion("held-" + i, Dht.ABSENT, bytes("v" + i), expiry)));
        }
        IdSpace space = IdSpace.SHA1;
        BigInteger a = ring.nodes().get(0).node().id();
        BigInteger b = ring.nodes().get(1).node().id();
        BigInteger from = space.distance(a, b).compareTo(space.distance(b, a)) >= 0 ? a : b;
        BigInteger middle = from.add(space.distance(from, from.equals(a) ? b : a).shiftRight(1)).mod(space.size());
        ChordDht joiner = ring.addHoldingShare(Map.of("node-id", middle.toString(16)));
        List<ChordDht> members = List.of(ring.nodes().get(0), ring.nodes().get(1));

        long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        int k = 200;
        while (System.nanoTime() < until) {
            assertEquals(0.0, joiner.ownedRanges().map(KeyRangeSet::share).orElse(0.0), "the joiner serves keys");
            for (ChordDht m : members) {
                assertNotEquals(Optional.of(joiner.node()), m.ringSnapshot().predecessor(),
                        "a member took the joiner for its predecessor");
            }
            assertTrue(await(joiner.putIfVersion("held-" + k, Dht.ABSENT, bytes("v" + k), expiry)));
            k++;
        }
        for (int i = 0; i < k; i++) {
            Optional<VersionedValue> read = await(joiner.get("held-" + i));
            assertTrue(read.isPresent(), "the joiner cannot read held-" + i);
        }

        await(joiner.claimShare());
        LoopbackRing.waitUntil(() -> joiner.ownedRanges().map(KeyRangeSet::share).orElse(0.0) > 0.2,
                LoopbackRing.CONVERGE, () -> "the joiner did not take its range");
        ring.awaitIdeal();
        assertTrue(joiner.storedValues() > 0, "the joiner took its range without its keys");
        for (int i = 0; i < k; i++) {
            Optional<VersionedValue> read = await(ring.nodes().get(i % 3).get("held-" + i));
            assertArrayEquals(bytes("v" + i), read.orElseThrow(() -> new AssertionError("lost")).value());
        }
    }

    /**
     * A joiner copies its range before it notifies its successor, then
     * fetches only what changed since: keys rewritten and removed through
     * the ring while it joins are found as last left, none comes back.
     */
    @Test
    void keysRewrittenAndRemovedWhileAJoinerCopiesAheadAreTakenOverAsLastLeft() throws Exception {
        ring = new LoopbackRing(2, Clock.systemUTC()).start(2);
        Instant expiry = Instant.now().plusSeconds(3600);
        int keys = 300;
        for (int i = 0; i < keys; i++) {
            assertTrue(await(ring.nodes().get(i % 2).putIfVersion("churned-" + i, Dht.ABSENT, new byte[2048], expiry)));
        }
        ChordDht writerNode = ring.nodes().get(0);
        // What each key was last left as by an acknowledged operation; a key whose last operation failed is unknown.
        Map<String, Optional<Byte>> last = new ConcurrentHashMap<>();
        Set<String> unknown = ConcurrentHashMap.newKeySet();
        AtomicBoolean stop = new AtomicBoolean();
        // Four writers on disjoint keys, so that one waiting on the range in transfer does not stop the rest.
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            int first = w;
            Thread writer = new Thread(() -> {
                for (int op = first; op < 20_000 && !stop.get(); op += 4) {
                    String key = "churned-" + (op * 7 % keys);
                    try {
                        Optional<VersionedValue> now = writerNode.get(key).get(10, TimeUnit.SECONDS);
                        boolean done;
                        Optional<Byte> left;
                        if (now.isPresent() && op % 3 == 0) {
                            done = writerNode.removeIfVersion(key, now.get().version()).get(10, TimeUnit.SECONDS);
                            left = Optional.empty();
                        } else {
                            byte[] value = new byte[2048];
                            value[0] = (byte) op;
                            done = writerNode.putIfVersion(key, now.map(VersionedValue::version).orElse(Dht.ABSENT),
                                    value, expiry).get(10, TimeUnit.SECONDS);
                            left = Optional.of(value[0]);
                        }
                        if (done) {
                            last.put(key, left);
                            unknown.remove(key);
                        } else {
                            unknown.add(key);
                        }
                    } catch (Exception e) {
                        unknown.add(key);
                    }
                }
            }, "churn-writer-" + w);
            writer.start();
            writers.add(writer);
        }
        ChordDht joiner = ring.add();
        convergeCheckingInvariants();
        LoopbackRing.waitUntil(() -> joiner.ownedRanges().map(KeyRangeSet::share).orElse(0.0) > 0,
                LoopbackRing.CONVERGE, () -> "the joiner serves nothing");
        // Stopped at once: operations after the take-over would overwrite what it brought.
        stop.set(true);
        for (Thread writer : writers) {
            writer.join(30_000);
            assertFalse(writer.isAlive(), writer.getName() + " stopped");
        }
        assertTrue(last.size() >= 10, "only " + last.size() + " keys were rewritten or removed during the join");
        for (Map.Entry<String, Optional<Byte>> e : last.entrySet()) {
            if (unknown.contains(e.getKey())) {
                continue;
            }
            Optional<VersionedValue> read = await(joiner.get(e.getKey()));
            assertEquals(e.getValue(), read.map(v -> v.value()[0]), e.getKey());
        }
    }

    /**
     * Read-modify-write counters, the registrar's access pattern, while
     * twelve nodes join and one leaves. A new owner that answered "absent"
     * before its range's keys reached it would let a counter restart at one:
     * a lost update.
     */
    @Test
    void readModifyWritesWhileNodesJoinAndLeaveLoseNoUpdate() throws Exception {
        ring = new LoopbackRing(3, Clock.systemUTC()).start(4);
        List<ChordDht> entries = List.copyOf(ring.nodes());
        CompletableFuture<Void> churn = CompletableFuture.runAsync(() -> {
            List<ChordDht> joined = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                joined.add(ring.add());
            }
            ring.leave(joined.get(5));
        });
        Map<String, Integer> increments = new LinkedHashMap<>();
        Instant expiry = Instant.now().plusSeconds(3600);
        int round = 0;
        // Bounded: the churn takes a few seconds; a handful of rounds after it ends is enough.
        for (int afterChurn = 0; afterChurn < 5 && round < 400; round++) {
            if (churn.isDone()) {
                afterChurn++;
            }
            for (int k = 0; k < 40; k++) {
                String key = "counter-" + k;
                increment(entries.get((round + k) % entries.size()), key, expiry);
                increments.merge(key, 1, Integer::sum);
            }
        }
        churn.get(60, TimeUnit.SECONDS);
        ring.awaitIdeal();
        assertEveryIncrementSurvived(List.of(entries.get(0)), increments);
    }

    /** The first {@code count} keys {@code prefix-0, prefix-1, ...} that lie in {@code (from, owner]}. */
    private static List<String> keysOwnedBy(ChordDht owner, BigInteger from, String prefix, int count) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++) {
            String key = prefix + "-" + i;
            if (IdSpace.SHA1.betweenRightClosed(from, IdSpace.SHA1.idOf(key), owner.node().id())) {
                keys.add(key);
            }
        }
        return keys;
    }

    /** Every reader sees each counter at the number of increments acknowledged. */
    private static void assertEveryIncrementSurvived(List<ChordDht> readers, Map<String, Integer> increments) {
        for (ChordDht reader : readers) {
            for (Map.Entry<String, Integer> e : increments.entrySet()) {
                Optional<VersionedValue> read = await(reader.get(e.getKey()));
                assertTrue(read.isPresent(), "lost " + e.getKey());
                String count = new String(read.get().value(), StandardCharsets.UTF_8).split(" ")[0];
                assertEquals(e.getValue(), Integer.valueOf(count), "increments of " + e.getKey() + " that survived");
            }
        }
    }

    /**
     * One compare-and-set increment, retried from a fresh read on a version
     * conflict. The value carries a token, so a write that was applied but
     * whose answer was lost (and whose retry then conflicted) is recognised
     * instead of counted twice.
     */
    private static void increment(Dht via, String key, Instant expiry) {
        String token = java.util.UUID.randomUUID().toString();
        for (int attempt = 0; attempt < 50; attempt++) {
            Optional<VersionedValue> read = await(via.get(key));
            String[] held = read.map(v -> new String(v.value(), StandardCharsets.UTF_8).split(" ")).orElse(null);
            if (held != null && held[1].equals(token)) {
                return;
            }
            int n = held == null ? 0 : Integer.parseInt(held[0]);
            long expected = read.map(VersionedValue::version).orElse(Dht.ABSENT);
            if (await(via.putIfVersion(key, expected, bytes((n + 1) + " " + token), expiry))) {
                return;
            }
        }
        throw new AssertionError("no increment of " + key + " went through in 50 attempts");
    }

    @Test
    void withThreeReplicasKillingTwoAdjacentNodesAtOnceLosesNoAcknowledgedValue() {
        ring = new LoopbackRing(3, Clock.systemUTC()).start(SIZE);
        Map<String, byte[]> written = writeKeys(200, "durable");
        // The worst pair: a node and its successor, i.e. the owner and the first replica of some keys.
        List<ChordDht> byId = ring.byId();
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

    /**
     * A node that stops answering for a few seconds (a GC pause, a starved
     * machine) is taken for dead: its successor takes its range over and
     * serves writes there. When it answers again it must not go on serving
     * its old copies: every increment acknowledged meanwhile must survive.
     */
    @Test
    void anOwnerTakenForDeadWhileItStallsLosesNoUpdateWhenItComesBack() throws Exception {
        ring = new LoopbackRing(3, Clock.systemUTC()).start(6);
        List<ChordDht> byId = ring.byId();
        ChordDht stalled = byId.get(2);
        BigInteger from = byId.get(1).node().id();
        List<String> keys = keysOwnedBy(stalled, from, "stalled", 5);
        List<ChordDht> entries = List.of(byId.get(0), byId.get(4));
        Instant expiry = Instant.now().plusSeconds(3600);
        Map<String, Integer> increments = new LinkedHashMap<>();
        for (String key : keys) {
            increment(entries.get(0), key, expiry);
            increments.merge(key, 1, Integer::sum);
        }
        stalled.stall(Duration.ofSeconds(4));
        long stallEnds = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
        // Bounded: through the stall, then a few rounds while the stalled node rejoins the ring.
        for (int round = 0; round < 5000 && System.nanoTime() - stallEnds < TimeUnit.SECONDS.toNanos(3); round++) {
            for (String key : keys) {
                increment(entries.get(round % 2), key, expiry);
                increments.merge(key, 1, Integer::sum);
            }
        }
        ring.awaitIdeal();
        assertEveryIncrementSurvived(entries, increments);
    }

    /**
     * A node whose every successor goes silent at once (here: both of them
     * stall, as on a starved machine) must not decide it is alone and serve
     * every key: writes it acknowledged alone would be missing from the real
     * owners once the others answer again.
     */
    @Test
    void aNodeThatLosesEverySuccessorServesNothingUntilItFindsTheRingAgain() throws Exception {
        ring = new LoopbackRing(2, Clock.systemUTC());
        for (int i = 0; i < 3; i++) {
            ring.add(Map.of("successors", "2"));
        }
        ring.awaitIdeal();
        List<ChordDht> byId = ring.byId();
        ChordDht cutOff = byId.get(0);
        List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < 4; i++) {
            String key = "elsewhere-" + i;
            if (!IdSpace.SHA1.betweenRightClosed(byId.get(2).node().id(), IdSpace.SHA1.idOf(key),
                    cutOff.node().id())) {
                keys.add(key);
            }
        }
        Instant expiry = Instant.now().plusSeconds(3600);
        Map<String, Integer> increments = new LinkedHashMap<>();
        for (String key : keys) {
            increment(byId.get(1), key, expiry);
            increments.merge(key, 1, Integer::sum);
        }
        byId.get(1).stall(Duration.ofSeconds(3));
        byId.get(2).stall(Duration.ofSeconds(3));
        for (int round = 0; round < 3; round++) {
            for (String key : keys) {
                increment(cutOff, key, expiry);
                increments.merge(key, 1, Integer::sum);
            }
        }
        ring.awaitIdeal();
        assertEveryIncrementSurvived(byId, increments);
    }

    /**
     * Two adjacent nodes that stall together are both taken for dead: the
     * node after them takes both ranges over and acknowledges writes there.
     * When they answer again it hands what it wrote back to the nearer of
     * the two, its new predecessor; what belongs to the farther one must
     * reach that one too, or its owner answers "absent" for it from then on.
     */
    @Test
    void writesAcknowledgedWhileTwoAdjacentNodesStalledReachTheirOwnerWhenTheyReturn() throws Exception {
        ring = new LoopbackRing(3, Clock.systemUTC()).start(6);
        List<ChordDht> byId = ring.byId();
        ChordDht farther = byId.get(2);
        List<String> keys = keysOwnedBy(farther, byId.get(1).node().id(), "farther", 5);
        farther.stall(Duration.ofSeconds(6));
        byId.get(3).stall(Duration.ofSeconds(6));
        Instant expiry = Instant.now().plusSeconds(3600);
        Map<String, byte[]> written = new LinkedHashMap<>();
        for (String key : keys) {
            byte[] value = bytes("written during the stall: " + key);
            assertTrue(await(byId.get(0).putIfVersion(key, Dht.ABSENT, value, expiry)), key);
            written.put(key, value);
        }
        ring.awaitIdeal();
        assertAllReadable(written);
    }
}
