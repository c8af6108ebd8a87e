package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * When a node may take its own copy of a key, or its lack of one, as the
 * key's current value and skip the FIND_VALUE round to the key's other
 * holders: the read before a REGISTER's conditional write, and that
 * write's search for its coordinator. Not thread-safe: the owner thread's.
 *
 * <p>The rule. Every conditional write goes through the key's coordinator,
 * the closest live node, which is always one of the holders it stores the
 * write at ({@link WriteCoordinator}). So a node that is closer to the key
 * than every contact it knows, in an overlay whose membership has held
 * still long enough for the hand-overs of the last change to have ended
 * ({@link HolderShift}), coordinated every write to the key since then and
 * holds the latest of them; before then the key was handed to it. It
 * answers from its store only while all of that holds: it has announced
 * itself, suspects nobody, is not handing keys over itself, has seen no
 * contact join or leave its table for {@code settleMillis}, and no write
 * to the key was refused by another holder since it last coordinated one.
 *
 * <p>Why a mistake costs a retry, not a lost update. A write rests on the
 * version its writer read, and every holder refuses a write that replaces
 * a version other than the one it holds ({@link ReplicaStore}); the
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
    private final BooleanSupplier handingOver;
    private final long settleMillis;
    private final LongSupplier millis;
    private final Map<String, Boolean> distrusted = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > DISTRUSTED_KEYS;
        }
    };
    /** The table's change count when last looked at, and when it was first seen at that count. */
    private long seenChanges = -1;
    private long unchangedSince;

    /**
     * @param handingOver  whether this node is handing keys over after a change of its table
     * @param settleMillis how long the table's membership must have held still
     * @param millis       monotonic milliseconds
     */
    LocalAuthority(IdSpace space, Contact self, RoutingTable table, ContactHealth health, KademliaClient client,
                   BooleanSupplier handingOver, long settleMillis, LongSupplier millis) {
        if (settleMillis < 0) {
            throw new IllegalArgumentException("settle time must not be negative");
        }
        this.space = space;
        this.self = self;
        this.table = table;
        this.health = health;
        this.client = client;
        this.handingOver = handingOver;
        this.settleMillis = settleMillis;
        this.millis = millis;
    }

    /** Whether this node's own copy of {@code key} (or none) is the key's current value, by the rule above. */
    boolean answersFor(String key) {
        long now = millis.getAsLong();
        long changes = table.changes();
        if (changes != seenChanges) {
            // Seen here no earlier than it happened, so the settle time is, if anything, waited out too long.
            seenChanges = changes;
            unchangedSince = now;
        }
        if (!client.announced() || now - unchangedSince < settleMillis || handingOver.getAsBoolean()
                || health.anySuspected(now) || distrusted.containsKey(key)) {
            return false;
        }
        BigInteger id = space.idOf(key);
        List<Contact> nearest = table.closest(id, 1);
        return nearest.isEmpty() || space.distance(self.id(), id).compareTo(space.distance(nearest.get(0).id(), id)) < 0;
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
