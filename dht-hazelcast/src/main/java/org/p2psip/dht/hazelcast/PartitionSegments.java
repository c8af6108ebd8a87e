package org.p2psip.dht.hazelcast;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.IntUnaryOperator;

import org.p2psip.core.dht.KeyPlacement;
import org.p2psip.core.dht.KeyRange;
import org.p2psip.core.dht.KeyRangeSet;

/**
 * Lays Hazelcast's partitions over the {@linkplain KeyPlacement#point point}
 * line, so that the balancer can tell a key's owner from the ranges each
 * member reports, without Hazelcast's hash: partition {@code p} of {@code n}
 * holds the p-th of n equal slices of the line.
 *
 * <p>Hazelcast places a key by a hash of its partition key, which it does not
 * let us choose directly. So for every partition this finds a
 * <em>representative</em>, the smallest non-negative integer Hazelcast puts
 * there, and a key gives its slice's representative as its partition key
 * ({@link PlacedKey}). The table depends only on the partition count and
 * Hazelcast's hash, so every member and client computes the same one.
 */
final class PartitionSegments {

    /** Far more integers than a few thousand partitions need (about n·ln n); a bound, not a budget. */
    private static final int MAX_PROBES = 10_000_000;

    private final int count;
    private final int[] representatives;

    /**
     * @param count       the cluster's partition count
     * @param partitionOf the partition Hazelcast puts an {@link Integer} partition key in
     */
    PartitionSegments(int count, IntUnaryOperator partitionOf) {
        if (count < 1) {
            throw new IllegalArgumentException("a cluster has at least one partition, not " + count);
        }
        this.count = count;
        this.representatives = new int[count];
        java.util.Arrays.fill(representatives, -1);
        int found = 0;
        for (int i = 0; i < MAX_PROBES && found < count; i++) {
            int p = partitionOf.applyAsInt(i);
            if (representatives[p] < 0) {
                representatives[p] = i;
                found++;
            }
        }
        if (found < count) {
            throw new IllegalStateException("no representative found for " + (count - found) + " of " + count
                    + " partitions");
        }
    }

    int count() {
        return count;
    }

    /** The partition whose slice holds {@code point}: ⌊point · n / 2^64⌋, the point read unsigned. */
    int partitionOf(long point) {
        return (int) (Math.multiplyHigh(point, count) + ((point >> 63) & count));
    }

    /** The integer Hazelcast places in partition {@code p}. */
    int representative(int partition) {
        return representatives[partition];
    }

    /** The slice of partition {@code p}: from ⌈p · 2^64 / n⌉ to just before the next one. */
    KeyRange slice(int partition) {
        long first = firstPoint(partition);
        long last = partition == count - 1 ? -1L : firstPoint(partition + 1) - 1;
        return new KeyRange(first, last);
    }

    /** The union of the partitions' slices. */
    KeyRangeSet slices(Collection<Integer> partitions) {
        List<KeyRange> ranges = new ArrayList<>(partitions.size());
        for (int p : partitions) {
            ranges.add(slice(p));
        }
        return KeyRangeSet.of(ranges);
    }

    private long firstPoint(int partition) {
        BigInteger[] qr = BigInteger.valueOf(partition).shiftLeft(64).divideAndRemainder(BigInteger.valueOf(count));
        BigInteger ceiling = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
        return ceiling.longValue();
    }
}
