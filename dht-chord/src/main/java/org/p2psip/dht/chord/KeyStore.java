package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;

import org.p2psip.core.dht.Dht;

/**
 * The values one node holds, as owner or replica; single-threaded (the
 * node's owner thread). The owner checks a conditional write's version here
 * and mints the new one; it stores the entry once its first replica has
 * accepted it (see {@link FencedWrites}). Replicas take whatever is newer.
 * An expired entry is treated as absent everywhere and purged.
 */
public final class KeyStore {

    /** An entry and its point on the ring, hashed once when it is stored rather than on every scan. */
    private record Held(StoredEntry entry, BigInteger id) {
    }

    /** Entries in a range, in key order from a mark: at most a page's worth, and whether more follow. */
    public record Page(List<StoredEntry> entries, Optional<String> next) {

        public Page {
            entries = List.copyOf(entries);
            Objects.requireNonNull(next, "next");
        }
    }

    private final Map<String, Held> entries = new HashMap<>();
    private final VersionClock versions;
    private final IdSpace space;

    /** A store on the SHA-1 ring. */
    public KeyStore(VersionClock versions) {
        this(versions, IdSpace.SHA1);
    }

    /** A store whose range questions are asked on {@code space}. */
    public KeyStore(VersionClock versions, IdSpace space) {
        this.versions = versions;
        this.space = space;
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
        entries.put(entry.key(), new Held(entry, current != null ? current.id() : space.idOf(entry.key())));
        return true;
    }

    /** Replica side: drops the key if what is held is not newer than the removed version. */
    public void removeIfNotNewer(String key, long removedVersion) {
        StoredEntry current = entry(key);
        if (current != null && current.version() <= removedVersion) {
            entries.remove(key);
        }
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
     * One page of {@link #liveIn}: the live entries of {@code (from, to]}
     * whose keys sort after {@code after}, in key order, until they would
     * pass {@code maxBytes} or number {@code maxEntries} (at least one,
     * however large); {@link Page#next} is the mark to ask from for the rest.
     * Key order, unlike the ring's, needs no state between pages: a range
     * moved page by page costs one scan per page, with no snapshot kept for a
     * requester that may never come back.
     */
    public Page pageIn(BigInteger from, BigInteger to, Instant now, Optional<String> after, long maxBytes,
                       int maxEntries) {
        if (maxEntries < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("a page holds at least one entry and one byte");
        }
        // The first maxEntries + 1 keys past the mark; the extra one tells whether more follow.
        TreeMap<String, StoredEntry> candidates = new TreeMap<>();
        for (Held h : entries.values()) {
            String key = h.entry().key();
            if ((after.isEmpty() || key.compareTo(after.get()) > 0)
                    && (candidates.size() <= maxEntries || key.compareTo(candidates.lastKey()) < 0)
                    && h.entry().liveAt(now) && space.betweenRightClosed(from, h.id(), to)) {
                candidates.put(key, h.entry());
                if (candidates.size() > maxEntries + 1) {
                    candidates.pollLastEntry();
                }
            }
        }
        List<StoredEntry> page = new ArrayList<>();
        long bytes = 0;
        for (StoredEntry e : candidates.values()) {
            long size = wireSize(e);
            if (!page.isEmpty() && (bytes + size > maxBytes || page.size() == maxEntries)) {
                return new Page(page, Optional.of(page.get(page.size() - 1).key()));
            }
            page.add(e);
            bytes += size;
        }
        return new Page(page, Optional.empty());
    }

    /** About how many bytes {@code e} takes in a message: its value, its key as modified UTF-8 at worst, and numbers. */
    static long wireSize(StoredEntry e) {
        return e.value().length + e.key().length() * 3L + 32;
    }

    public int purgeExpired(Instant now) {
        int before = entries.size();
        entries.values().removeIf(h -> !h.entry().liveAt(now));
        return before - entries.size();
    }

    public int size() {
        return entries.size();
    }
}
