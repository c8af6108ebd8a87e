package org.p2psip.dht.hazelcast;

import java.util.Objects;

import org.p2psip.core.store.HeldValue;
import org.p2psip.core.store.HeldValueLog;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryEvictedListener;
import com.hazelcast.map.listener.EntryExpiredListener;
import com.hazelcast.map.listener.EntryRemovedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;

/**
 * A member's local entry listener on the bindings map: every entry this
 * member owns that is written, removed, evicted or expires goes to its data
 * directory's {@link HeldValueLog}. Hazelcast tells a local listener about
 * the entries its member owns, not about backups; with every owner keeping
 * its own, each key is on some member's disk, and a member keeps what it
 * owned even after the partition moved away, so nothing is lost when every
 * member stops at once.
 */
final class HeldEntries implements EntryAddedListener<PlacedKey, StoredValue>,
        EntryUpdatedListener<PlacedKey, StoredValue>, EntryRemovedListener<PlacedKey, StoredValue>,
        EntryEvictedListener<PlacedKey, StoredValue>, EntryExpiredListener<PlacedKey, StoredValue> {

    private final HeldValueLog log;

    HeldEntries(HeldValueLog log) {
        this.log = Objects.requireNonNull(log, "log");
    }

    @Override
    public void entryAdded(EntryEvent<PlacedKey, StoredValue> event) {
        stored(event);
    }

    @Override
    public void entryUpdated(EntryEvent<PlacedKey, StoredValue> event) {
        stored(event);
    }

    @Override
    public void entryRemoved(EntryEvent<PlacedKey, StoredValue> event) {
        log.removed(event.getKey().key());
    }

    @Override
    public void entryEvicted(EntryEvent<PlacedKey, StoredValue> event) {
        log.removed(event.getKey().key());
    }

    @Override
    public void entryExpired(EntryEvent<PlacedKey, StoredValue> event) {
        log.removed(event.getKey().key());
    }

    private void stored(EntryEvent<PlacedKey, StoredValue> event) {
        StoredValue v = event.getValue();
        log.stored(new HeldValue(event.getKey().key(), v.value(), v.version(), v.expiresAtMillis()));
    }
}
