package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;

import org.p2psip.core.net.HostPort;

/**
 * Kademlia nodes in memory, for unit tests and the seeded simulation: every
 * node has a real {@link RoutingTable} and lookups run the real
 * {@link NodeLookup} state machine, but a message is a method call and a
 * crashed node simply stops answering. Time is a counter the caller
 * advances; randomness comes from the seed. Deterministic for a seed.
 */
final class SimulatedOverlay {

    /** The result of one lookup: its rounds, messages, and whether it found the true closest live node. */
    record Outcome(int rounds, int queries, List<Contact> closest, boolean foundClosest) {
    }

    private final IdSpace space;
    private final int k;
    private final int alpha;
    private final SplittableRandom random;
    private final Map<BigInteger, RoutingTable> tables = new HashMap<>();
    private final Set<BigInteger> alive = new HashSet<>();
    private final List<BigInteger> aliveList = new ArrayList<>();
    private long now;
    private int port = 1;

    SimulatedOverlay(IdSpace space, int k, int alpha, long seed) {
        this.space = space;
        this.k = k;
        this.alpha = alpha;
        this.random = new SplittableRandom(seed);
    }

    SplittableRandom random() {
        return random;
    }

    void advance(long millis) {
        now += millis;
    }

    Contact contactOf(BigInteger id) {
        // The address is irrelevant in memory; the port only keeps contacts distinct.
        return new Contact(id, new HostPort("sim", 1 + id.mod(BigInteger.valueOf(65_000)).intValue()),
                Optional.empty());
    }

    BigInteger freshId() {
        while (true) {
            BigInteger id = space.random(random);
            if (!tables.containsKey(id)) {
                return id;
            }
        }
    }

    List<BigInteger> aliveIds() {
        return Collections.unmodifiableList(aliveList);
    }

    RoutingTable table(BigInteger id) {
        return tables.get(id);
    }

    boolean isAlive(BigInteger id) {
        return alive.contains(id);
    }

    /**
     * Joins a node the way §2.3 does: learn the seed, look up your own id,
     * then refresh every bucket farther than your closest neighbour.
     */
    BigInteger join(BigInteger id, Optional<BigInteger> seed) {
        RoutingTable table = new RoutingTable(space, id, k);
        tables.put(id, table);
        alive.add(id);
        aliveList.add(id);
        sortedAlive = null;
        if (seed.isPresent()) {
            observe(id, contactOf(seed.get()));
            lookup(id, id);
            for (int bucket : table.bucketsToRefresh(now + 1, 1)) {
                if (table.bucket(bucket).isEmpty() || bucket > space.bucketIndex(id, closestKnown(id))) {
                    lookup(id, space.randomIdInBucket(id, bucket, random));
                }
            }
        }
        return id;
    }

    private BigInteger closestKnown(BigInteger id) {
        List<Contact> c = tables.get(id).closest(id, 1);
        return c.isEmpty() ? id : c.get(0).id();
    }

    /**
     * Builds {@code n} nodes with well-filled buckets directly (each bucket
     * gets up to k random members of its id range), as a long-running
     * overlay would have after refreshes; joining 10,000 nodes one by one
     * would measure the builder, not the lookups.
     */
    void populate(int n) {
        List<BigInteger> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            BigInteger id = freshId();
            tables.put(id, new RoutingTable(space, id, k));
            ids.add(id);
        }
        Collections.sort(ids);
        sortedAlive = null;
        for (BigInteger id : ids) {
            alive.add(id);
            aliveList.add(id);
            RoutingTable table = tables.get(id);
            for (int bucket = 0; bucket < space.bits(); bucket++) {
                // Bucket i of x covers the ids sharing x's bits above i and differing at bit i: one range.
                BigInteger low = id.shiftRight(bucket + 1).shiftLeft(bucket + 1)
                        .or(id.testBit(bucket) ? BigInteger.ZERO : BigInteger.ONE.shiftLeft(bucket));
                BigInteger high = low.add(BigInteger.ONE.shiftLeft(bucket));
                int from = lowerBound(ids, low);
                int to = lowerBound(ids, high);
                int count = to - from;
                if (count <= k) {
                    for (int i = from; i < to; i++) {
                        table.observe(contactOf(ids.get(i)), now);
                    }
                } else {
                    Set<Integer> picked = new HashSet<>();
                    while (picked.size() < k) {
                        picked.add(from + random.nextInt(count));
                    }
                    for (int i : picked) {
                        table.observe(contactOf(ids.get(i)), now);
                    }
                }
            }
        }
    }

    private static int lowerBound(List<BigInteger> sorted, BigInteger key) {
        int at = Collections.binarySearch(sorted, key);
        return at >= 0 ? at : -at - 1;
    }

    /** A crash: the node stops answering; others learn of it only by timeouts. */
    void crash(BigInteger id) {
        alive.remove(id);
        aliveList.remove(id);
        sortedAlive = null;
    }

    BigInteger randomAlive() {
        return aliveList.get(random.nextInt(aliveList.size()));
    }

    private List<BigInteger> sortedAlive;

    /**
     * The true closest live node to {@code target}, for judging lookups:
     * descends the implicit binary trie of the sorted live ids, preferring
     * at each bit the half that agrees with the target (that is XOR order).
     */
    BigInteger trueClosest(BigInteger target) {
        if (sortedAlive == null) {
            sortedAlive = new ArrayList<>(aliveList);
            Collections.sort(sortedAlive);
        }
        int lo = 0;
        int hi = sortedAlive.size();
        BigInteger prefix = BigInteger.ZERO;
        for (int bit = space.bits() - 1; bit >= 0 && hi - lo > 1; bit--) {
            // Ids in [lo, hi) share the bits above `bit`; those with `bit` set start at `split`.
            BigInteger withBit = prefix.setBit(bit);
            int split = lo + lowerBound(sortedAlive.subList(lo, hi), withBit);
            boolean hasZero = split > lo;
            boolean hasOne = split < hi;
            boolean takeOne = target.testBit(bit) ? hasOne : !hasZero;
            if (takeOne) {
                lo = split;
                prefix = withBit;
            } else {
                hi = split;
            }
        }
        return sortedAlive.get(lo);
    }

    /** Runs one iterative FIND_NODE from {@code from} to {@code target}, delivering every message at once. */
    Outcome lookup(BigInteger from, BigInteger target) {
        RoutingTable origin = tables.get(from);
        NodeLookup lookup = new NodeLookup(space, from, target, k, alpha, origin.closest(target, k));
        while (!lookup.isDone()) {
            List<Contact> batch = lookup.nextQueries();
            if (batch.isEmpty()) {
                break;
            }
            for (Contact peer : batch) {
                if (!alive.contains(peer.id())) {
                    lookup.onFailure(peer);
                    origin.remove(peer.id());
                    continue;
                }
                // The queried node learns the querier (§2.2: every message updates buckets).
                observe(peer.id(), contactOf(from));
                List<Contact> answer = tables.get(peer.id()).closest(target, k);
                observe(from, peer);
                lookup.onAnswer(peer, answer, Optional.empty());
            }
        }
        origin.touch(space.bucketIndex(from, target), now);
        List<Contact> closest = lookup.closestAnswered();
        BigInteger truth = trueClosest(target);
        boolean found = truth.equals(from) || (!closest.isEmpty() && closest.get(0).id().equals(truth))
                || (!closest.isEmpty() && truth.equals(from));
        return new Outcome(lookup.rounds(), lookup.queries(), closest, found);
    }

    /** Applies the k-bucket rule, performing the ping it asks for against the simulated liveness. */
    void observe(BigInteger at, Contact seen) {
        RoutingTable table = tables.get(at);
        if (table.observe(seen, now) instanceof RoutingTable.Observation.BucketFull full) {
            if (alive.contains(full.leastRecentlySeen().id())) {
                table.observe(full.leastRecentlySeen(), now);
            } else {
                table.replace(full.leastRecentlySeen(), full.newcomer(), now);
            }
        }
    }
}
