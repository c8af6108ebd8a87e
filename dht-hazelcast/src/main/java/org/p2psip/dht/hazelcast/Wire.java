package org.p2psip.dht.hazelcast;

/**
 * Everything this backend sends between members or stores in the grid: the
 * stored key and value and the three owner-side operations. One sealed family so that a
 * single {@link WireSerializer} (found by Hazelcast through
 * {@link WireSerializerHook}) writes all of them compactly, on members and
 * clients alike, without any Hazelcast configuration naming them.
 */
sealed interface Wire permits StoredValue, PutIfVersion, RemoveIfVersion, PlacedKey, RestoreIfNewer {
}
