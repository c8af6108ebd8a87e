package org.p2psip.dht.hazelcast;

import java.util.Map;

import com.hazelcast.map.EntryProcessor;

/**
 * The conditional remove, run on the key's owner like {@link PutIfVersion}
 * and deterministic for the same reason: an expired value never matches, so
 * a caller holding a version of a lapsed value cannot remove a newer one.
 */
record RemoveIfVersion(long expectedVersion, long nowMillis)
        implements EntryProcessor<PlacedKey, StoredValue, Boolean>, Wire {

    @Override
    public Boolean process(Map.Entry<PlacedKey, StoredValue> entry) {
        StoredValue current = entry.getValue();
        if (current == null || !current.liveAt(nowMillis) || current.version() != expectedVersion) {
            return Boolean.FALSE;
        }
        entry.setValue(null);
        return Boolean.TRUE;
    }
}
