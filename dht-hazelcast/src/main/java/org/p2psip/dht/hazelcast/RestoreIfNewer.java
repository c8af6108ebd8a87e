package org.p2psip.dht.hazelcast;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;

/**
 * Puts back a value a member kept on disk before every member stopped
 * ({@code --data-dir}), on the key's owner under its partition's thread:
 * only if the grid holds nothing live for the key or an older version, so
 * of several members' copies the newest wins, and a value written since the
 * restart is never overwritten. Deterministic like {@link PutIfVersion}, so
 * the backups reach the same decision.
 */
record RestoreIfNewer(byte[] value, long version, long expiresAtMillis, long nowMillis)
        implements EntryProcessor<PlacedKey, StoredValue, Boolean>, Wire {

    @Override
    public Boolean process(Map.Entry<PlacedKey, StoredValue> entry) {
        StoredValue current = entry.getValue();
        if (expiresAtMillis <= nowMillis || current != null && current.liveAt(nowMillis) && current.version() >= version) {
            return Boolean.FALSE;
        }
        long ttl = Math.max(PutIfVersion.MIN_TTL_MILLIS, expiresAtMillis - nowMillis);
        @SuppressWarnings("unchecked")
        ExtendedMapEntry<PlacedKey, StoredValue> extended = (ExtendedMapEntry<PlacedKey, StoredValue>) entry;
        extended.setValue(new StoredValue(value, version, expiresAtMillis), ttl, TimeUnit.MILLISECONDS);
        return Boolean.TRUE;
    }
}
