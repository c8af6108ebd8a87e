package org.p2psip.dht.chord;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The lookup-hop metric: how many remote nodes each lookup asked, as a count,
 * a total (so an average) and a histogram by hop count (the last bucket
 * collects everything longer).
 */
public final class LookupStats {

    /** A point-in-time copy. */
    public record Snapshot(long lookups, long totalHops, long[] histogram) {

        public double averageHops() {
            return lookups == 0 ? 0 : (double) totalHops / lookups;
        }
    }

    public static final int BUCKETS = 33;

    private final LongAdder lookups = new LongAdder();
    private final LongAdder hops = new LongAdder();
    private final AtomicLongArray histogram = new AtomicLongArray(BUCKETS);

    public void record(int hopCount) {
        lookups.increment();
        hops.add(hopCount);
        histogram.incrementAndGet(Math.min(hopCount, BUCKETS - 1));
    }

    public Snapshot snapshot() {
        long[] h = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) {
            h[i] = histogram.get(i);
        }
        return new Snapshot(lookups.sum(), hops.sum(), h);
    }
}
