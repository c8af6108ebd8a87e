package org.p2psip.dht.hazelcast;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;

import org.p2psip.core.dht.Dht;

/**
 * The conditional write, run by Hazelcast on the key's owner under the
 * partition's single thread, so the version check and the write are one
 * atomic step: two writers that read the same version cannot both commit.
 *
 * <p>Everything the decision depends on travels in the record — the caller's
 * "now" and the new version included — so the processor is deterministic:
 * Hazelcast re-runs it on each synchronous backup (the default backup
 * processor is the processor itself) and the backup reaches the same
 * decision on the same state, and tests can drive expiry with an injected
 * clock.
 */
record PutIfVersion(long expectedVersion, byte[] value, long expiresAtMillis, long nowMillis, long newVersion)
        implements EntryProcessor<PlacedKey, StoredValue, Boolean>, Wire {

    /** Hazelcast's TTL granularity is coarse near zero; a value never lives in the grid for less. */
    static final long MIN_TTL_MILLIS = 1_000;

    @Override
    public Boolean process(Map.Entry<PlacedKey, StoredValue> entry) {
        StoredValue current = entry.getValue();
        long currentVersion = current != null && current.liveAt(nowMillis) ? current.version() : Dht.ABSENT;
        if (currentVersion != expectedVersion) {
            return Boolean.FALSE;
        }
        // The TTL only lets Hazelcast reclaim memory; liveness is always decided from
        // expiresAtMillis, so a TTL that runs a little long is harmless.
        long ttl = Math.max(MIN_TTL_MILLIS, expiresAtMillis - nowMillis);
        @SuppressWarnings("unchecked")
        ExtendedMapEntry<PlacedKey, StoredValue> extended = (ExtendedMapEntry<PlacedKey, StoredValue>) entry;
        extended.setValue(new StoredValue(value, newVersion, expiresAtMillis), ttl, TimeUnit.MILLISECONDS);
        return Boolean.TRUE;
    }
}
