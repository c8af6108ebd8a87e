package org.p2psip.dht.chord;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

    private final Map<String, StoredEntry> entries = new HashMap<>();
    private final VersionClock versions;

    public KeyStore(VersionClock versions) {
        this.versions = versions;
    }

    public Optional<StoredEntry> live(String key, Instant now) {
        StoredEntry e = entries.get(key);
        return e != null && e.liveAt(now) ? Optional.of(e) : Optional.empty();
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
        StoredEntry current = entries.get(key);
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
        StoredEntry current = entries.get(entry.key());
        if (current != null && current.version() >= entry.version()) {
            return false;
        }
        entries.put(entry.key(), entry);
        return true;
    }

    /** Replica side: drops the key if what is held is not newer than the removed version. */
    public void removeIfNotNewer(String key, long removedVersion) {
        StoredEntry current = entries.get(key);
        if (current != null && current.version() <= removedVersion) {
            entries.remove(key);
        }
    }

    public List<StoredEntry> entries(Predicate<StoredEntry> which) {
        List<StoredEntry> out = new ArrayList<>();
        for (StoredEntry e : entries.values()) {
            if (which.test(e)) {
                out.add(e);
            }
        }
        return out;
    }

    public int purgeExpired(Instant now) {
        int before = entries.size();
        entries.values().removeIf(e -> !e.liveAt(now));
        return before - entries.size();
    }

    public int size() {
        return entries.size();
    }
}
