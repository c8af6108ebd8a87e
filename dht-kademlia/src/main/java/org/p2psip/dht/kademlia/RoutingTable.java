package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A node's k-buckets (Maymounkov &amp; Mazières §2.2): bucket i holds up to
 * {@code k} contacts at XOR distance [2^i, 2^(i+1)), ordered least-recently
 * seen first. Pure state: time is an argument, and the one effect the rule
 * needs — pinging the least-recently-seen contact of a full bucket — is
 * returned to the caller as {@link Observation.BucketFull} rather than done
 * here. Not thread-safe: one owner thread per node.
 *
 * <p>The eviction rule: when a contact is seen, it moves to the tail of its
 * bucket; a new contact joins a bucket with room; a full bucket keeps its
 * old contacts unless the least-recently-seen one fails a ping, because
 * long-lived nodes are the likeliest to stay (§2.2).
 */
public final class RoutingTable {

    /** What {@link #observe} did, and what the caller must do next. */
    public sealed interface Observation {
        /** The contact is this node; ignored. */
        record Self() implements Observation {
        }

        /** A known contact moved to the tail of its bucket. */
        record Refreshed() implements Observation {
        }

        /** A new contact joined a bucket with room. */
        record Inserted() implements Observation {
        }

        /**
         * The bucket is full: ping {@code leastRecentlySeen}; if it fails, call
         * {@link #replace} to put {@code newcomer} in its place, otherwise
         * observe it again (which moves it to the tail) and drop the newcomer.
         */
        record BucketFull(Contact leastRecentlySeen, Contact newcomer) implements Observation {
        }
    }

    private final IdSpace space;
    private final BigInteger self;
    private final int k;
    private final List<List<Contact>> buckets;
    private final long[] lastTouched;
    /** Bumped whenever a contact joins or leaves the table, so its owner can tell the membership moved. */
    private long changes;
    /** Contacts in all buckets: every read and write asks, so it is kept rather than summed over the buckets. */
    private int size;
    /** Bumped whenever a contact leaves the table. */
    private long departures;

    public RoutingTable(IdSpace space, BigInteger self, int k) {
        if (k < 1) {
            throw new IllegalArgumentException("k must be positive");
        }
        this.space = space;
        this.self = self;
        this.k = k;
        this.buckets = new ArrayList<>(space.bits());
        for (int i = 0; i < space.bits(); i++) {
            buckets.add(new ArrayList<>());
        }
        this.lastTouched = new long[space.bits()];
    }

    public BigInteger self() {
        return self;
    }

    public int k() {
        return k;
    }

    /** Records that {@code contact} was heard from at {@code nowMillis} (any message, §2.2). */
    public Observation observe(Contact contact, long nowMillis) {
        int index = space.bucketIndex(self, contact.id());
        if (index < 0) {
            return new Observation.Self();
        }
        List<Contact> bucket = buckets.get(index);
        lastTouched[index] = nowMillis;
        int at = indexOf(bucket, contact.id());
        if (at >= 0) {
            bucket.remove(at);
            bucket.add(contact);
            return new Observation.Refreshed();
        }
        if (bucket.size() < k) {
            bucket.add(contact);
            size++;
            changes++;
            return new Observation.Inserted();
        }
        return new Observation.BucketFull(bucket.get(0), contact);
    }

    /**
     * The least-recently-seen contact failed its ping: drop it and take
     * {@code newcomer}. Does nothing if {@code stale} has since been seen
     * (it is no longer at the head) or already left.
     */
    public boolean replace(Contact stale, Contact newcomer, long nowMillis) {
        int index = space.bucketIndex(self, stale.id());
        if (index < 0) {
            return false;
        }
        List<Contact> bucket = buckets.get(index);
        if (bucket.isEmpty() || !bucket.get(0).id().equals(stale.id())) {
            return false;
        }
        bucket.remove(0);
        size--;
        departures++;
        if (indexOf(bucket, newcomer.id()) < 0 && space.bucketIndex(self, newcomer.id()) == index) {
            bucket.add(newcomer);
            size++;
        }
        changes++;
        lastTouched[index] = nowMillis;
        return true;
    }

    /** Forgets a contact that stopped answering. */
    public boolean remove(BigInteger id) {
        int index = space.bucketIndex(self, id);
        if (index < 0) {
            return false;
        }
        List<Contact> bucket = buckets.get(index);
        int at = indexOf(bucket, id);
        if (at < 0) {
            return false;
        }
        bucket.remove(at);
        size--;
        departures++;
        changes++;
        return true;
    }

    /**
     * How many times a contact has joined or left the table: unchanged
     * while its membership holds still, whatever else is seen meanwhile
     * (a contact seen again only moves within its bucket).
     */
    public long changes() {
        return changes;
    }

    /** How many times a contact has left the table (evicted or removed); joins do not count. */
    public long departures() {
        return departures;
    }

    /**
     * The lowest index of a full bucket, or the id width when none is. A
     * full bucket may have turned contacts away (§2.2), so the table may
     * not know every node at the distances it covers; below it, it knows
     * every node it has heard of.
     */
    public int nearestFullBucket() {
        for (int i = 0; i < buckets.size(); i++) {
            if (buckets.get(i).size() >= k) {
                return i;
            }
        }
        return buckets.size();
    }

    public Optional<Contact> find(BigInteger id) {
        int index = space.bucketIndex(self, id);
        if (index < 0) {
            return Optional.empty();
        }
        List<Contact> bucket = buckets.get(index);
        int at = indexOf(bucket, id);
        return at < 0 ? Optional.empty() : Optional.of(bucket.get(at));
    }

    /** The {@code n} known contacts closest to {@code target} by XOR, closest first (never this node). */
    public List<Contact> closest(BigInteger target, int n) {
        List<Contact> all = contacts();
        all.sort(byDistanceTo(target));
        return all.size() <= n ? all : new ArrayList<>(all.subList(0, n));
    }

    public List<Contact> contacts() {
        List<Contact> all = new ArrayList<>();
        buckets.forEach(all::addAll);
        return all;
    }

    public int size() {
        return size;
    }

    /** Contacts of bucket {@code index}, least-recently seen first. */
    public List<Contact> bucket(int index) {
        return List.copyOf(buckets.get(index));
    }

    /** Marks bucket {@code index} as covered by a lookup just now (a lookup refreshes its range, §2.3). */
    public void touch(int index, long nowMillis) {
        if (index >= 0) {
            lastTouched[index] = nowMillis;
        }
    }

    /**
     * Buckets to refresh (§2.3): those untouched for {@code refreshMillis},
     * from the bucket of this node's closest neighbour outwards — nearer
     * buckets are empty by construction in a sparse id space, and refreshing
     * them would only look up ids nobody has.
     */
    public List<Integer> bucketsToRefresh(long nowMillis, long refreshMillis) {
        int nearest = -1;
        for (int i = 0; i < buckets.size(); i++) {
            if (!buckets.get(i).isEmpty()) {
                nearest = i;
                break;
            }
        }
        List<Integer> due = new ArrayList<>();
        if (nearest < 0) {
            return due;
        }
        for (int i = nearest; i < buckets.size(); i++) {
            if (nowMillis - lastTouched[i] >= refreshMillis) {
                due.add(i);
            }
        }
        return due;
    }

    public Comparator<Contact> byDistanceTo(BigInteger target) {
        return Comparator.comparing(c -> space.distance(c.id(), target));
    }

    private static int indexOf(List<Contact> bucket, BigInteger id) {
        for (int i = 0; i < bucket.size(); i++) {
            if (bucket.get(i).id().equals(id)) {
                return i;
            }
        }
        return -1;
    }
}
