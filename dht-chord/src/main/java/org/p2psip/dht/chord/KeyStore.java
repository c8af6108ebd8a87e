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
 * node's owner thread). Conditional writes run here at the owner, so checking
 * the version and writing are one step; replicas take whatever is newer.
 * An expired entry is treated as absent everywhere and purged.
 */
public final class KeyStore {

    /** Result of a conditional write: the entry written, or empty on a version mismatch. */
    public record Outcome(boolean applied, Optional<StoredEntry> written, long removedVersion) {
    }

    private final Map<String, StoredEntry> entries = new HashMap<>();
    private final VersionClock versions;

    public KeyStore(VersionClock versions) {
        this.versions = versions;
    }

    public Optional<StoredEntry> live(String key, Instant now) {
        StoredEntry e = entries.get(key);
        return e != null && e.liveAt(now) ? Optional.of(e) : Optional.empty();
    }

    public Outcome putIfVersion(String key, long expected, byte[] value, Instant expiresAt, Instant now) {
        StoredEntry current = entries.get(key);
        long currentVersion = current != null && current.liveAt(now) ? current.version() : Dht.ABSENT;
        if (currentVersion != expected) {
            return new Outcome(false, Optional.empty(), 0);
        }
        long replacing = current != null ? current.version() : 0;
        StoredEntry written = new StoredEntry(key, value.clone(), versions.next(now, replacing), expiresAt);
        entries.put(key, written);
        return new Outcome(true, Optional.of(written), 0);
    }

    public Outcome removeIfVersion(String key, long expected, Instant now) {
        StoredEntry current = entries.get(key);
        if (current == null || !current.liveAt(now) || current.version() != expected) {
            return new Outcome(false, Optional.empty(), 0);
        }
        entries.remove(key);
        return new Outcome(true, Optional.empty(), current.version());
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
