package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import org.p2psip.core.store.HeldValue;
import org.p2psip.core.store.HeldValueLog;

/**
 * The values this node holds as one of their keys' replicas, and the
 * holder's side of the coordinator's prepare/commit rule. Pure state: time
 * is an argument (monotonic nanoseconds for holds and republish ages, wall
 * milliseconds for expiry), and the one check it cannot make — whether the
 * sender of a coordinated write is the closest live node this holder knows,
 * which takes a ping — is left to the caller between {@link #offer} and
 * {@link #prepare}.
 *
 * <p>The rule. A replica only ever moves to a higher version, so that a
 * lagging copy cannot bring back an older value (a removal is a versioned
 * tombstone). The same version again is taken when it is the same write (a
 * retransmission or a republish) and refused otherwise: two coordinators can
 * hand out the same version in the same millisecond, and the writer's write
 * id tells their writes apart. A republish or repair ({@code prev} =
 * {@link #REPAIR}) is stored at once if it moves this holder forward. A
 * coordinated write ({@code prev} ≥ 0) is first <em>prepared</em> — taken
 * aside, not yet visible — if this holder holds nothing newer than
 * {@code prev} and has no other write of the key prepared, so two
 * coordinators racing on one version cannot both get through a shared
 * holder; the coordinator's COMMIT then makes it visible, or drops it. A
 * prepared write whose coordinator died lapses after the hold given at
 * construction. §2.5: a value a peer stored here is not republished by this
 * node for one interval, since that peer is republishing it.
 */
final class ReplicaStore {

    /** The {@code prev} of a STORE that repairs or republishes rather than writes. */
    static final long REPAIR = -1;
    /** An expired entry is kept this long so its version is still seen (versions are never reused). */
    static final long EXPIRED_GRACE_MILLIS = 10 * 60_000;

    /** A held copy; {@code peerStored} once any peer has stored a version of the key here. */
    private record Entry(StoredValue value, long lastStoredByPeerNanos, boolean peerStored) {
    }

    /** A coordinated write prepared here, waiting for its commit until {@code untilMillis} (monotonic). */
    private record Prepared(StoredValue value, long untilMillis) {
    }

    private final long preparedHoldMillis;
    private final Map<String, Entry> store = new HashMap<>();
    /** Coordinated writes prepared here and not yet committed or dropped, by key. */
    private final Map<String, Prepared> prepared = new HashMap<>();
    /** The latest version of a key this node wrote as coordinator, and the other nodes it stored it at. */
    private record Coordinated(long version, Set<BigInteger> holders) {
    }

    /** Keys whose latest version this node wrote as coordinator (dropped when a peer stores a version). */
    private final Map<String, Coordinated> coordinated = new HashMap<>();

    private final HeldValueLog log;

    /** @param preparedHoldMillis how long a prepared write waits for its commit */
    ReplicaStore(long preparedHoldMillis) {
        this(preparedHoldMillis, HeldValueLog.NONE);
    }

    /**
     * @param preparedHoldMillis how long a prepared write waits for its commit
     * @param log                where every value kept and every tombstone or purge goes (the node's data directory)
     */
    ReplicaStore(long preparedHoldMillis, HeldValueLog log) {
        if (preparedHoldMillis <= 0) {
            throw new IllegalArgumentException("the prepared hold must be positive, not " + preparedHoldMillis);
        }
        this.preparedHoldMillis = preparedHoldMillis;
        this.log = Objects.requireNonNull(log, "log");
    }

    /**
     * Takes back a value this node held before it restarted, read from its
     * data directory, unless a newer one is held: as a repair would, not
     * reported to the log it came from, and due for republishing, since no
     * peer has stored it here since. Its write id is lost with the restart.
     */
    void restore(HeldValue held) {
        Entry current = store.get(held.key());
        if (current == null || current.value().version() < held.version()) {
            store.put(held.key(), new Entry(new StoredValue(held.value(), held.version(), held.expiresAtMillis(),
                    false, 0), 0, false));
        }
    }

    /** The visible copy of {@code key}, expired or not. */
    Optional<StoredValue> get(String key) {
        return Optional.ofNullable(store.get(key)).map(Entry::value);
    }

    /**
     * How many values this node holds. May be read outside the owner
     * thread: a racy read of a count, at worst a moment old.
     */
    int size() {
        return store.size();
    }

    /**
     * A holder's rule for a STORE of {@code value} over {@code prev}
     * ({@link #REPAIR} for a republish or repair); {@code fromPeer} when
     * another node sent it. Returns what the holder answers — except for a
     * coordinated write that passes every check made here: then empty, and
     * the caller {@link #prepare prepares} it once it has found the sender to
     * be the closest live node it knows (or is the coordinator itself).
     */
    Optional<StoreOutcome> offer(String key, StoredValue value, long prev, boolean fromPeer, long nowNanos) {
        Entry held = store.get(key);
        if (held != null && held.value().version() == value.version()) {
            return Optional.of(held.value().writeId() == value.writeId()
                    ? StoreOutcome.TAKEN : StoreOutcome.REFUSED_NEWER);
        }
        if (prev == REPAIR) {
            if (held != null && held.value().version() > value.version()) {
                return Optional.of(StoreOutcome.REFUSED_NEWER);
            }
            keep(key, value, fromPeer, nowNanos);
            return Optional.of(StoreOutcome.TAKEN);
        }
        Prepared pending = preparedFor(key, nowNanos);
        if (pending != null) {
            return Optional.of(sameWrite(pending.value(), value.version(), value.writeId())
                    ? StoreOutcome.TAKEN : StoreOutcome.REFUSED_NEWER);
        }
        if (held != null && held.value().version() > prev) {
            return Optional.of(StoreOutcome.REFUSED_NEWER);
        }
        return Optional.empty();
    }

    /** Prepares a coordinated write {@link #offer} let through: held aside, not visible, until committed. */
    void prepare(String key, StoredValue value, long nowNanos) {
        prepared.put(key, new Prepared(value, millis(nowNanos) + preparedHoldMillis));
    }

    /**
     * A holder's rule for a COMMIT of the write {@code version}/{@code writeId}:
     * make it visible, or ({@code drop}) drop it. A commit of a version
     * already visible is taken (a retransmission); one whose prepared write
     * has lapsed or been replaced is refused, and so is one a repair has
     * overtaken meanwhile — the coordinator then reports the write failed.
     */
    StoreOutcome settle(String key, long version, long writeId, boolean drop, boolean fromPeer, long nowNanos) {
        Prepared pending = preparedFor(key, nowNanos);
        boolean mine = pending != null && sameWrite(pending.value(), version, writeId);
        if (drop) {
            if (mine) {
                prepared.remove(key);
            }
            return StoreOutcome.TAKEN;
        }
        Entry held = store.get(key);
        if (held != null && sameWrite(held.value(), version, writeId)) {
            return StoreOutcome.TAKEN;
        }
        if (!mine) {
            return StoreOutcome.REFUSED_NEWER;
        }
        prepared.remove(key);
        if (held != null && held.value().version() > version) {
            return StoreOutcome.REFUSED_NEWER;
        }
        keep(key, pending.value(), fromPeer, nowNanos);
        return StoreOutcome.TAKEN;
    }

    /**
     * Drops entries expired longer than {@link #EXPIRED_GRACE_MILLIS} ago,
     * and with them this node's claim to have written their latest version.
     */
    void purgeExpired(long wallMillis) {
        store.entrySet().removeIf(e -> {
            boolean lapsed = wallMillis > e.getValue().value().expiresAtMillis() + EXPIRED_GRACE_MILLIS;
            if (lapsed) {
                log.removed(e.getKey());
            }
            return lapsed;
        });
        coordinated.keySet().retainAll(store.keySet());
    }

    /** §2.5: the live keys no peer has stored here within {@code intervalNanos}. */
    List<String> dueForRepublish(long wallMillis, long nowNanos, long intervalNanos) {
        List<String> due = new ArrayList<>();
        for (Map.Entry<String, Entry> e : store.entrySet()) {
            if (e.getValue().value().expiresAtMillis() > wallMillis
                    && nowNanos - e.getValue().lastStoredByPeerNanos() >= intervalNanos) {
                due.add(e.getKey());
            }
        }
        return due;
    }

    /**
     * The keys whose copy here has not expired, tombstones included (they
     * keep older copies from coming back); with {@code broughtOnly}, only
     * those no peer has stored here: what this node read back from its data
     * directory or wrote as coordinator.
     */
    List<String> unexpiredKeys(long wallMillis, boolean broughtOnly) {
        List<String> keys = new ArrayList<>();
        for (Map.Entry<String, Entry> e : store.entrySet()) {
            if (e.getValue().value().expiresAtMillis() > wallMillis && !(broughtOnly && e.getValue().peerStored())) {
                keys.add(e.getKey());
            }
        }
        return keys;
    }

    /**
     * The copy of {@code key} held here if this node wrote that very version
     * as coordinator, at the same other {@code holders} it would write to
     * now. A node that has lost sight of some of them (a partition) may have
     * been taken for dead meanwhile, and another coordinator may have written
     * newer versions to them: its own copy then proves nothing.
     */
    Optional<StoredValue> coordinatedHere(String key, Collection<BigInteger> holders) {
        Coordinated mine = coordinated.get(key);
        Entry held = store.get(key);
        return mine != null && held != null && held.value().version() == mine.version()
                && mine.holders().equals(Set.copyOf(holders))
                ? Optional.of(held.value()) : Optional.empty();
    }

    /** This node coordinated {@code version} of {@code key}, stored at itself and the other {@code holders}. */
    void markCoordinated(String key, long version, Collection<BigInteger> holders) {
        coordinated.put(key, new Coordinated(version, Set.copyOf(holders)));
    }

    void forgetCoordinated(String key) {
        coordinated.remove(key);
    }

    /** The write prepared for {@code key} and not yet lapsed, if any. */
    private Prepared preparedFor(String key, long nowNanos) {
        Prepared p = prepared.get(key);
        if (p != null && millis(nowNanos) > p.untilMillis()) {
            prepared.remove(key);
            return null;
        }
        return p;
    }

    private void keep(String key, StoredValue value, boolean fromPeer, long nowNanos) {
        Entry held = store.get(key);
        if (fromPeer && (held == null || held.value().version() != value.version())) {
            // Someone else wrote this key: this node's copy is no longer known to be the latest.
            coordinated.remove(key);
        }
        long stamp = fromPeer ? nowNanos : (held == null ? 0 : held.lastStoredByPeerNanos());
        store.put(key, new Entry(value, stamp, fromPeer || held != null && held.peerStored()));
        if (value.tombstone()) {
            log.removed(key);
        } else {
            log.stored(new HeldValue(key, value.value(), value.version(), value.expiresAtMillis()));
        }
    }

    private static boolean sameWrite(StoredValue v, long version, long writeId) {
        return v.version() == version && v.writeId() == writeId;
    }

    /** Monotonic milliseconds, as {@code OverlayRuntime.millis()} derives them from the same nanoseconds. */
    private static long millis(long nanos) {
        return nanos / 1_000_000;
    }
}
