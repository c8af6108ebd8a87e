package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.store.HeldValue;
import org.p2psip.core.store.HeldValueLog;

/**
 * The values one node holds, as owner or replica; single-threaded (the
 * node's owner thread). The owner checks a conditional write's version here
 * and mints the new one; it stores the entry once its first replica has
 * accepted it (see {@link FencedWrites}). Replicas take whatever is newer.
 * An expired entry is treated as absent everywhere and purged.
 *
 * <p>Every entry stored and every removal is stamped with a change number,
 * counted here, and the last {@value #REMOVALS_KEPT} removals are kept: so a
 * node that copied a range can later be brought up to date with what
 * changed since ({@link #pageIn} with a mark), removals included, rather
 * than copying the whole range again. That is how a joiner takes a range
 * over with only a short pause in serving it ({@link KeyMover}).
 *
 * <p>Entries are also indexed by change number and by expiry, so that
 * what changed since a mark and what has expired are found without a scan
 * of the whole store: the owner thread that serves every key operation
 * runs both every maintenance round, and a scan of half a million entries
 * held it up for tens of milliseconds each time.
 */
public final class KeyStore {

    /** Removals kept for bringing copies up to date; older ones are forgotten, and a copy older than them is taken anew. */
    static final int REMOVALS_KEPT = 1 << 16;

    /** An entry, its point on the ring (hashed once when it is stored rather than on every scan) and its change number. */
    private record Held(StoredEntry entry, BigInteger id, long change) {
    }

    /** A removal kept for copies made before it: the key's point, the version removed and the change number. */
    private record Removed(BigInteger id, long version, long change) {
    }

    /** A key removed, and the version removed: a copy not newer than that goes too. */
    public record Removal(String key, long version) {

        public Removal {
            Objects.requireNonNull(key, "key");
        }
    }

    /**
     * Entries in a range, in key order from a mark: at most a page's worth,
     * the removals among them when changes since a mark were asked for, and
     * the key to ask from for the rest, if any.
     */
    public record Page(List<StoredEntry> entries, List<Removal> removals, Optional<String> next) {

        public Page {
            entries = List.copyOf(entries);
            removals = List.copyOf(removals);
            Objects.requireNonNull(next, "next");
        }
    }

    /** Soonest expiry first; the change number (unique) tells entries that expire together apart. */
    private static final Comparator<Held> BY_EXPIRY = Comparator.comparing((Held h) -> h.entry().expiresAt())
            .thenComparingLong(Held::change);

    private final Map<String, Held> entries = new HashMap<>();
    /** The same entries by change number. */
    private final NavigableMap<Long, Held> byChange = new TreeMap<>();
    /** The same entries by expiry. */
    private final TreeSet<Held> byExpiry = new TreeSet<>(BY_EXPIRY);
    /** Kept removals by key, oldest first. */
    private final LinkedHashMap<String, Removed> removed = new LinkedHashMap<>();
    /** The change number of the last entry stored or removed here. */
    private long changes;
    /** The newest change number among the removals no longer kept: changes since an older mark cannot be told. */
    private long forgottenUpTo;
    private final VersionClock versions;
    private final IdSpace space;

    private final HeldValueLog log;

    /** A store on the SHA-1 ring. */
    public KeyStore(VersionClock versions) {
        this(versions, IdSpace.SHA1);
    }

    /** A store whose range questions are asked on {@code space}. */
    public KeyStore(VersionClock versions, IdSpace space) {
        this(versions, space, HeldValueLog.NONE);
    }

    /** A store that reports every entry it takes or lets go of to {@code log} (the node's data directory). */
    public KeyStore(VersionClock versions, IdSpace space, HeldValueLog log) {
        this.versions = versions;
        this.space = space;
        this.log = Objects.requireNonNull(log, "log");
    }

    /**
     * Takes back an entry this node held before it restarted, read from its
     * data directory: held as a replica holds it, newest version winning,
     * and not reported to the log it came from.
     */
    public void restore(HeldValue held) {
        StoredEntry entry = new StoredEntry(held.key(), held.value(), held.version(),
                Instant.ofEpochMilli(held.expiresAtMillis()));
        Held current = entries.get(entry.key());
        if (current == null || current.entry().version() < entry.version()) {
            hold(new Held(entry, current != null ? current.id() : space.idOf(entry.key()), ++changes));
        }
    }

    public Optional<StoredEntry> live(String key, Instant now) {
        StoredEntry e = entry(key);
        return e != null && e.liveAt(now) ? Optional.of(e) : Optional.empty();
    }

    private StoredEntry entry(String key) {
        Held h = entries.get(key);
        return h == null ? null : h.entry();
    }

    /** The live version of {@code key}, or {@link Dht#ABSENT}. */
    public long liveVersion(String key, Instant now) {
        return live(key, now).map(StoredEntry::version).orElse(Dht.ABSENT);
    }

    /**
     * At the owner: the entry a conditional write would store (with a fresh
     * version above whatever is held, even an expired copy), or empty when
     * {@code expected} is not the live version. Nothing is stored yet: the
     * owner stores it once its first replica has accepted it.
     */
    public Optional<StoredEntry> proposePut(String key, long expected, byte[] value, Instant expiresAt, Instant now) {
        if (liveVersion(key, now) != expected) {
            return Optional.empty();
        }
        StoredEntry current = entry(key);
        long replacing = current != null ? current.version() : 0;
        return Optional.of(new StoredEntry(key, value.clone(), versions.next(now, replacing), expiresAt));
    }

    /** At the owner: whether a conditional removal at {@code expected} would remove a live value. */
    public boolean canRemove(String key, long expected, Instant now) {
        return expected != Dht.ABSENT && liveVersion(key, now) == expected;
    }

    /**
     * At the first replica: the live copy held here if it is newer than
     * {@code base}, the version the owner's write replaces. Such a copy was
     * written while this node served the key itself (it took the owner for
     * dead), so the owner's write rests on a stale read and must not land.
     */
    public Optional<StoredEntry> newerThan(String key, long base, Instant now) {
        return live(key, now).filter(e -> e.version() > base);
    }

    /** Replica side: keeps {@code entry} unless a newer version is already here. */
    public boolean mergeIfNewer(StoredEntry entry) {
        Held current = entries.get(entry.key());
        if (current != null && current.entry().version() >= entry.version()) {
            return false;
        }
        hold(new Held(entry, current != null ? current.id() : space.idOf(entry.key()), ++changes));
        removed.remove(entry.key());
        log.stored(new HeldValue(entry.key(), entry.value(), entry.version(), entry.expiresAt().toEpochMilli()));
        return true;
    }

    /** Replica side: drops the key if what is held is not newer than the removed version. */
    public void removeIfNotNewer(String key, long removedVersion) {
        Held current = entries.get(key);
        if (current != null && current.entry().version() <= removedVersion) {
            release(key);
            log.removed(key);
            removed.remove(key);
            removed.put(key, new Removed(current.id(), removedVersion, ++changes));
            if (removed.size() > REMOVALS_KEPT) {
                Iterator<Removed> oldest = removed.values().iterator();
                forgottenUpTo = Math.max(forgottenUpTo, oldest.next().change());
                oldest.remove();
            }
        }
    }

    /**
     * Drops every entry of {@code (from, to]} without recording removals: a
     * copy this node took and no longer trusts, not a change to the keys.
     */
    public int dropIn(BigInteger from, BigInteger to) {
        return dropWhere(h -> space.betweenRightClosed(from, h.id(), to));
    }

    /** The change number of the last entry stored or removed here: a mark to ask for changes since. */
    public long changeMark() {
        return changes;
    }

    /** Holds {@code h} in place of whatever was held under its key, in every index. */
    private void hold(Held h) {
        Held previous = entries.put(h.entry().key(), h);
        if (previous != null) {
            unindex(previous);
        }
        byChange.put(h.change(), h);
        byExpiry.add(h);
    }

    /** Lets go of what is held under {@code key}, in every index; null when nothing was. */
    private Held release(String key) {
        Held h = entries.remove(key);
        if (h != null) {
            unindex(h);
        }
        return h;
    }

    private void unindex(Held h) {
        byChange.remove(h.change());
        byExpiry.remove(h);
    }

    /**
     * The entries live at {@code now} whose point {@code where} accepts and
     * that were stored here after change {@code mark}: what a copy made up
     * to that mark lacks, found without a scan of the rest.
     */
    public List<StoredEntry> liveChangedSince(long mark, Instant now, Predicate<BigInteger> where) {
        List<StoredEntry> out = new ArrayList<>();
        for (Held h : byChange.tailMap(mark, false).values()) {
            if (h.entry().liveAt(now) && where.test(h.id())) {
                out.add(h.entry());
            }
        }
        return out;
    }

    /** The entries live at {@code now} whose point {@code where} accepts. */
    public List<StoredEntry> liveWhere(Instant now, Predicate<BigInteger> where) {
        List<StoredEntry> out = new ArrayList<>();
        for (Held h : entries.values()) {
            if (h.entry().liveAt(now) && where.test(h.id())) {
                out.add(h.entry());
            }
        }
        return out;
    }

    /** The entries live at {@code now} with a point in {@code (from, to]}. */
    public List<StoredEntry> liveIn(BigInteger from, BigInteger to, Instant now) {
        return liveWhere(now, id -> space.betweenRightClosed(from, id, to));
    }

    /**
     * One page of {@link #liveIn}, or of what changed there since a mark:
     * the live entries of {@code (from, to]} whose keys sort after {@code
     * after} (or, given {@code since}, the entries stored after that change
     * number, expired or not, and the removals made after it), in key order, until they
     * would pass {@code maxBytes} or number {@code maxEntries} (at least one,
     * however large); {@link Page#next} is the key to ask from for the rest.
     * Empty when {@code since} is older than the removals kept. Key order,
     * unlike the ring's, needs no state between pages: a range moved page by
     * page costs one scan per page, with no snapshot kept for a requester
     * that may never come back.
     */
    public Optional<Page> pageIn(BigInteger from, BigInteger to, Instant now, OptionalLong since,
                                 Optional<String> after, long maxBytes, int maxEntries) {
        if (maxEntries < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("a page holds at least one entry and one byte");
        }
        if (since.isPresent() && since.getAsLong() < forgottenUpTo) {
            return Optional.empty();
        }
        long changedAfter = since.orElse(Long.MIN_VALUE);
        // The first maxEntries + 1 keys past the mark (entries or removals); the extra one tells whether more follow.
        TreeMap<String, Object> candidates = new TreeMap<>();
        Iterable<Held> scanned = since.isPresent() ? byChange.tailMap(changedAfter, false).values() : entries.values();
        for (Held h : scanned) {
            // Changes go whether live or not: an entry that expired early may replace a copy that would not have.
            if (h.change() > changedAfter && (since.isPresent() || h.entry().liveAt(now))) {
                offer(candidates, h.entry().key(), h.entry(), h.id(), from, to, after, maxEntries);
            }
        }
        if (since.isPresent()) {
            for (Map.Entry<String, Removed> r : removed.entrySet()) {
                if (r.getValue().change() > changedAfter) {
                    offer(candidates, r.getKey(), new Removal(r.getKey(), r.getValue().version()), r.getValue().id(),
                            from, to, after, maxEntries);
                }
            }
        }
        List<StoredEntry> page = new ArrayList<>();
        List<Removal> removals = new ArrayList<>();
        long bytes = 0;
        String last = null;
        for (Map.Entry<String, Object> c : candidates.entrySet()) {
            long size = c.getValue() instanceof StoredEntry e ? wireSize(e) : wireSize((Removal) c.getValue());
            int taken = page.size() + removals.size();
            if (taken > 0 && (bytes + size > maxBytes || taken == maxEntries)) {
                return Optional.of(new Page(page, removals, Optional.of(last)));
            }
            if (c.getValue() instanceof StoredEntry e) {
                page.add(e);
            } else {
                removals.add((Removal) c.getValue());
            }
            bytes += size;
            last = c.getKey();
        }
        return Optional.of(new Page(page, removals, Optional.empty()));
    }

    private void offer(TreeMap<String, Object> candidates, String key, Object item, BigInteger id, BigInteger from,
                       BigInteger to, Optional<String> after, int maxEntries) {
        if ((after.isEmpty() || key.compareTo(after.get()) > 0)
                && (candidates.size() <= maxEntries || key.compareTo(candidates.lastKey()) < 0)
                && space.betweenRightClosed(from, id, to)) {
            candidates.put(key, item);
            if (candidates.size() > maxEntries + 1) {
                candidates.pollLastEntry();
            }
        }
    }

    /** About how many bytes {@code e} takes in a message: its value, its key as modified UTF-8 at worst, and numbers. */
    static long wireSize(StoredEntry e) {
        return e.value().length + e.key().length() * 3L + 32;
    }

    /** About how many bytes {@code r} takes in a message: its key as modified UTF-8 at worst, and its version. */
    static long wireSize(Removal r) {
        return r.key().length() * 3L + 16;
    }

    /** Drops the entries expired at {@code now}, soonest first, touching no other. */
    public int purgeExpired(Instant now) {
        int dropped = 0;
        while (!byExpiry.isEmpty() && !byExpiry.first().entry().liveAt(now)) {
            String key = byExpiry.first().entry().key();
            release(key);
            log.removed(key);
            dropped++;
        }
        return dropped;
    }

    private int dropWhere(Predicate<Held> which) {
        List<String> dropping = new ArrayList<>();
        for (Held h : entries.values()) {
            if (which.test(h)) {
                dropping.add(h.entry().key());
            }
        }
        for (String key : dropping) {
            release(key);
            log.removed(key);
        }
        return dropping.size();
    }

    public int size() {
        return entries.size();
    }
}
