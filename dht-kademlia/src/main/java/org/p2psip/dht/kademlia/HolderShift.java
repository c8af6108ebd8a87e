package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What one change of this node's routing table asks of it for a key it
 * holds: whom to give the key to, worked out from the table before and
 * after the change, without a lookup. Pure: built from two snapshots of the
 * table, asked key by key.
 *
 * <p>The rule. A key lives on its {@code width} closest nodes, this node
 * counted. Kademlia (Maymounkov &amp; Mazières §2.5) republishes every value
 * every hour, and in addition a node that learns of a new node stores at it
 * the values it has become one of the closest to — but only when no node
 * it knows is closer to the key, so that one STORE is sent rather than one
 * per holder. Here that transfer is the main mechanism, and it also covers
 * nodes that leave: the key's holders are worked out in the table before
 * and after the change; if they differ, the holders that are new (a joiner,
 * or the node that moved in behind one taken for dead) are sent the key by
 * the closest <em>former</em> holder still alive, which had a copy. A key
 * whose holders did not change costs nothing, so an overlay whose
 * membership holds still republishes nothing; republishing on the clock,
 * which costs a lookup and a STORE per key and on a large store more than
 * the foreground, is left to a slow safety net. We deviate from the paper
 * in making the clock the exception rather than the rule.
 *
 * <p>Why the table can be trusted without a lookup. A node unknown here
 * that is closer to the key than the farthest holder found belongs, by the
 * XOR metric, in one of this node's buckets no higher than the top bit of
 * that distance (or of this node's own distance to the key, if larger). A
 * bucket that is not full takes every contact it hears of (§2.2), so if
 * none of those buckets is full the table knows every such node this node
 * has heard of — the paper's "complete knowledge of the surrounding
 * subtree". If one of them is full, the key is looked up instead
 * ({@link Duty.LookUp}).
 */
final class HolderShift {

    /** What this node owes one key after the change. */
    sealed interface Duty {

        /** The key's holders are the ones it had, or none of the new ones is for this node to tell. */
        record Unchanged() implements Duty {
        }

        /** {@code giver}, a former holder closer to the key and still alive, gives it to the new holders. */
        record LeftTo(Contact giver) implements Duty {
        }

        /** Store the key at these holders, new since the change; never this node. */
        record Give(List<Contact> newcomers) implements Duty {
            public Give {
                newcomers = List.copyOf(newcomers);
            }
        }

        /**
         * The table may not know every node that close to the key: look it
         * up, and store it at the holders found that are not among
         * {@code formerHolders} (this node's own id among them).
         */
        record LookUp(Set<BigInteger> formerHolders) implements Duty {
            public LookUp {
                formerHolders = Set.copyOf(formerHolders);
            }
        }
    }

    /** A contact of either snapshot, and which of them it is in. */
    private record Member(Contact contact, boolean before, boolean after) {
    }

    private final IdSpace space;
    private final Contact self;
    private final int width;
    private final int nearestFullBucket;
    private final List<Member> members;
    private final boolean changed;

    /**
     * @param self              this node
     * @param width             how many nodes hold a key, this one counted
     * @param before            the table's contacts at the last change handled (empty for a node's first view)
     * @param after             the table's contacts now
     * @param nearestFullBucket {@link RoutingTable#nearestFullBucket()} now
     */
    HolderShift(IdSpace space, Contact self, int width, Collection<Contact> before, Collection<Contact> after,
                int nearestFullBucket) {
        if (width < 1) {
            throw new IllegalArgumentException("a key needs at least one holder, not " + width);
        }
        this.space = Objects.requireNonNull(space, "space");
        this.self = Objects.requireNonNull(self, "self");
        this.width = width;
        this.nearestFullBucket = nearestFullBucket;
        Map<BigInteger, Contact> was = byId(before);
        Map<BigInteger, Contact> is = byId(after);
        Map<BigInteger, Member> all = new LinkedHashMap<>();
        all.put(self.id(), new Member(self, true, true));
        was.forEach((id, c) -> all.putIfAbsent(id, new Member(c, true, is.containsKey(id))));
        is.forEach((id, c) -> all.putIfAbsent(id, new Member(c, false, true)));
        this.members = List.copyOf(all.values());
        this.changed = !was.keySet().equals(is.keySet());
    }

    /** Whether the two snapshots differ in membership at all; if not, every key is {@link Duty.Unchanged}. */
    boolean changed() {
        return changed;
    }

    /** What this node, which holds the key {@code keyId}, must do about it. */
    Duty dutyFor(BigInteger keyId) {
        if (!changed) {
            return new Duty.Unchanged();
        }
        Closest was = new Closest(width);
        Closest is = new Closest(width);
        for (Member m : members) {
            BigInteger d = space.distance(m.contact().id(), keyId);
            if (m.before()) {
                was.offer(m, d);
            }
            if (m.after()) {
                is.offer(m, d);
            }
        }
        Set<BigInteger> formerHolders = was.ids();
        Set<BigInteger> holders = is.ids();
        if (formerHolders.equals(holders)) {
            return new Duty.Unchanged();
        }
        // The closest former holder still alive had a copy and gives it; if none is left, this node's copy is
        // the one there is.
        Contact giver = self;
        for (Member m : was.closestFirst()) {
            if (m.after()) {
                giver = m.contact();
                break;
            }
        }
        if (!giver.id().equals(self.id())) {
            return new Duty.LeftTo(giver);
        }
        if (!tableKnowsEveryHolder(keyId, is)) {
            return new Duty.LookUp(formerHolders);
        }
        List<Contact> newcomers = new ArrayList<>();
        for (Member m : is.closestFirst()) {
            if (!formerHolders.contains(m.contact().id()) && !m.contact().id().equals(self.id())) {
                newcomers.add(m.contact());
            }
        }
        return newcomers.isEmpty() ? new Duty.Unchanged() : new Duty.Give(newcomers);
    }

    /**
     * Whether no bucket that could hold a node closer to the key than its
     * farthest holder is full (see the class comment). Fewer holders than
     * {@code width} means any node anywhere would be one: then no bucket
     * may be full.
     */
    private boolean tableKnowsEveryHolder(BigInteger keyId, Closest holders) {
        if (holders.size() < width) {
            return nearestFullBucket >= space.bits();
        }
        BigInteger reach = holders.farthest().max(space.distance(self.id(), keyId));
        int highestBucket = reach.bitLength() - 1;
        return highestBucket < nearestFullBucket;
    }

    private static Map<BigInteger, Contact> byId(Collection<Contact> contacts) {
        Map<BigInteger, Contact> m = new LinkedHashMap<>();
        contacts.forEach(c -> m.putIfAbsent(c.id(), c));
        return m;
    }

    /**
     * The up to {@code n} members closest to a key, closest first: kept by
     * insertion, since n is a handful and most members fall beyond it after
     * one comparison.
     */
    private static final class Closest {
        private final Member[] members;
        private final BigInteger[] distances;
        private int size;

        Closest(int n) {
            this.members = new Member[n];
            this.distances = new BigInteger[n];
        }

        void offer(Member m, BigInteger d) {
            if (size == members.length && d.compareTo(distances[size - 1]) >= 0) {
                return;
            }
            int at = size == members.length ? size - 1 : size++;
            while (at > 0 && distances[at - 1].compareTo(d) > 0) {
                members[at] = members[at - 1];
                distances[at] = distances[at - 1];
                at--;
            }
            members[at] = m;
            distances[at] = d;
        }

        int size() {
            return size;
        }

        BigInteger farthest() {
            return distances[size - 1];
        }

        List<Member> closestFirst() {
            return Arrays.asList(members).subList(0, size);
        }

        Set<BigInteger> ids() {
            Set<BigInteger> ids = new HashSet<>();
            for (int i = 0; i < size; i++) {
                ids.add(members[i].contact().id());
            }
            return ids;
        }
    }
}
