package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * When a node may take its own copy of a key, or its lack of one, as the
 * key's current value and skip the FIND_VALUE round to the key's other
 * holders: the read before a REGISTER's conditional write, and that
 * write's search for its coordinator. Not thread-safe: the owner thread's.
 *
 * <p>The rule. Every conditional write goes through the key's coordinator,
 * the closest live node, and is acknowledged only once all of the key's
 * holders hold it, the coordinator first among them ({@link
 * WriteCoordinator}). A node closer to the key than every contact it knows
 * therefore holds every acknowledged write to it, provided it was already
 * the closest or a holder when they were made: a contact joining the table
 * only takes keys away from it, and one leaving makes it the closest node
 * only to keys it held as the second closest. What it may lack is its own
 * share right after it announced itself, while the others' hand-overs
 * ({@link HolderShift}) are still under way, and the keys of a node that
 * left while the hand-overs of an earlier change were, before the next
 * holder had them. So it answers from its store only once {@code
 * settleMillis} have passed since it announced itself and since a contact
 * left its table within {@code settleMillis} of another change; only while
 * it knows as many other
 * nodes as a read must hear from ({@link ContactHealth#othersNeeded}), the
 * condition a lookup is held to; and only for keys no other holder has
 * refused a write of since it last coordinated one.
 *
 * <p>Why a mistake costs a retry, not a lost update. A write rests on the
 * version its writer read, and every holder refuses a write that replaces
 * a version older than the one it holds ({@link ReplicaStore#offer}); the
 * coordinator's next-closest holder was the key's closest or second
 * closest before any single join or departure, so it holds what this node
 * may have missed. Its refusal marks the key here ({@link #distrust}), and
 * the writer's next read of it asks the holders again. Chord's owner reads
 * its own store on the same grounds ({@code KeyRouter}). Without this a
 * REGISTER on its key's coordinator cost four requests (FIND_VALUE to two
 * nodes, then prepare and commit at the other holder) instead of two, and
 * three kademlia nodes shed most of 1,000 REGISTER/s on two cores that
 * carried them on chord (2 Dec 2026).
 */
final class LocalAuthority {

    /** Keys whose writes another holder refused, remembered at most this many at a time. */
    private static final int DISTRUSTED_KEYS = 10_000;

    private final IdSpace space;
    private final Contact self;
    private final RoutingTable table;
    private final ContactHealth health;
    private final KademliaClient client;
    private final long settleMillis;
    private final LongSupplier millis;
    private final Map<String, Boolean> distrusted = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > DISTRUSTED_KEYS;
        }
    };
    /** The table's change and departure counts and whether this node was announced, when last looked at. */
    private long seenChanges = -1;
    private long seenDepartures;
    private boolean seenAnnounced;
    /** When the table was last seen to have changed. */
    private long changedAt;
    /** When the settle time last started over. */
    private long settlingSince;

    /**
     * @param settleMillis how long hand-overs may run after a change: how long after this node announced
     *                     itself, and after a contact left its table in the wake of another change, it still
     *                     asks the holders
     * @param millis       monotonic milliseconds
     */
    LocalAuthority(IdSpace space, Contact self, RoutingTable table, ContactHealth health, KademliaClient client,
                   long settleMillis, LongSupplier millis) {
        if (settleMillis < 0) {
            throw new IllegalArgumentException("settle time must not be negative");
        }
        this.space = space;
        this.self = self;
        this.table = table;
        this.health = health;
        this.client = client;
        this.settleMillis = settleMillis;
        this.millis = millis;
    }

    /** Whether this node's own copy of {@code key} (or none) is the key's current value, by the rule above. */
    boolean answersFor(String key) {
        long now = millis.getAsLong();
        observe(now);
        boolean announced = seenAnnounced;
        if (!announced || now - settlingSince < settleMillis || distrusted.containsKey(key)
                || table.size() < health.othersNeeded(table.size(), now)) {
            return false;
        }
        BigInteger id = space.idOf(key);
        List<Contact> nearest = table.closest(id, 1);
        return nearest.isEmpty() || space.distance(self.id(), id).compareTo(space.distance(nearest.get(0).id(), id)) < 0;
    }

    /**
     * Starts the settle time over when this node announced itself, and when
     * a contact left while the hand-overs of an earlier change may still be
     * running: within {@code settleMillis} of it, or unseen between the two.
     * A departure from a table that had held still leaves every key with a
     * holder that had all of its acknowledged writes. Changes are seen here
     * no earlier than they happened, so the time is, if anything, waited out
     * too long.
     */
    private void observe(long now) {
        boolean announced = client.announced();
        if (announced != seenAnnounced) {
            seenAnnounced = announced;
            settlingSince = now;
        }
        long changes = table.changes();
        if (changes == seenChanges) {
            return;
        }
        long departed = table.departures() - seenDepartures;
        boolean unsettled = seenChanges < 0 || changes - seenChanges > departed || departed > 1
                || now - changedAt < settleMillis;
        if (departed > 0 && unsettled) {
            settlingSince = now;
        }
        seenChanges = changes;
        seenDepartures = table.departures();
        changedAt = now;
    }

    /** Another holder refused a write of {@code key} this node coordinated: its reads ask the holders again. */
    void distrust(String key) {
        distrusted.put(key, Boolean.TRUE);
    }

    /** A write of {@code key} this node coordinated reached every holder: its own copy is current again. */
    void trust(String key) {
        distrusted.remove(key);
    }
}
