package org.p2psip.core.metrics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * A fixed-bucket latency histogram that many threads record into at once
 * without a lock: one {@link LongAdder} per bucket and one for the sum, so
 * a REGISTER-rate stream of recordings (about 10,000 a second) costs a
 * binary search and two striped additions each.
 *
 * <p>A duration lands in the first bucket whose upper bound it does not
 * exceed (bounds are inclusive, as Prometheus's {@code le} says), or in
 * +Inf past the last. The bounds run from 0.5 ms, below any network round
 * trip, to 25 s, past the longest an overlay backend retries an operation.
 *
 * <p>A {@link #snapshot} reads the adders one by one while recordings go on,
 * so the sum may be a recording ahead of or behind the counts; the counts
 * themselves are always cumulative and their total is the +Inf bucket.
 */
public final class LatencyHistogram {

    /** The finite upper bounds in nanoseconds, ascending; +Inf follows them. */
    public static final List<Long> UPPER_BOUNDS_NANOS = List.of(
            500_000L, 1_000_000L, 2_500_000L, 5_000_000L, 7_500_000L, 10_000_000L, 15_000_000L, 20_000_000L,
            30_000_000L, 50_000_000L, 75_000_000L, 100_000_000L, 150_000_000L, 200_000_000L, 300_000_000L,
            500_000_000L, 750_000_000L, 1_000_000_000L, 2_500_000_000L, 5_000_000_000L, 10_000_000_000L,
            25_000_000_000L);

    private static final long[] BOUNDS = UPPER_BOUNDS_NANOS.stream().mapToLong(Long::longValue).toArray();

    /** Per bucket, not cumulative: a recording touches one adder, a snapshot adds them up. */
    private final LongAdder[] buckets = new LongAdder[BOUNDS.length + 1];
    private final LongAdder sumNanos = new LongAdder();

    public LatencyHistogram() {
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = new LongAdder();
        }
    }

    /**
     * Records one operation that took {@code nanos}. A negative duration
     * (a time source that stepped back) counts as zero rather than
     * corrupting the sum.
     */
    public void record(long nanos) {
        long d = Math.max(0, nanos);
        buckets[bucketOf(d)].increment();
        sumNanos.add(d);
    }

    /** The counts so far, cumulative. */
    public LatencySnapshot snapshot() {
        List<Long> cumulative = new ArrayList<>(buckets.length);
        long running = 0;
        for (LongAdder b : buckets) {
            running += b.sum();
            cumulative.add(running);
        }
        return new LatencySnapshot(cumulative, sumNanos.sum());
    }

    /** The index of the bucket {@code nanos} falls in; {@code BOUNDS.length} is +Inf. */
    static int bucketOf(long nanos) {
        int i = Arrays.binarySearch(BOUNDS, nanos);
        // An exact bound belongs to its own bucket (le is inclusive); otherwise the insertion point is the next bound up.
        return i >= 0 ? i : -i - 1;
    }
}
