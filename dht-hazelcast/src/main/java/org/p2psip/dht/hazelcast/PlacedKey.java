package org.p2psip.dht.hazelcast;

import java.util.Objects;

import com.hazelcast.partition.PartitionAware;

/**
 * A DHT key as the map stores it: the key and the representative of the
 * partition its point falls in ({@link PartitionSegments}), which Hazelcast
 * hashes instead of the key, so that the key lands in the partition the
 * balancer expects.
 */
record PlacedKey(String key, int representative) implements Wire, PartitionAware<Integer> {

    PlacedKey {
        Objects.requireNonNull(key, "key");
        if (representative < 0) {
            throw new IllegalArgumentException("a partition representative is not negative");
        }
    }

    @Override
    public Integer getPartitionKey() {
        return representative;
    }

    @Override
    public String toString() {
        return key;
    }
}
