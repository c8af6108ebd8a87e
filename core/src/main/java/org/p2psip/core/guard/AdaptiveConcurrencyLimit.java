package org.p2psip.core.guard;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many operations may wait on the DHT at once, adapted to how fast it
 * answers (issue 33, "shed, never collapse"): work beyond the limit is
 * refused at the edge, where a SIP request can still get
 * {@code 503 Service Unavailable} with a Retry-After (RFC 3261 §21.5.4)
 * at once, instead of being queued into an overlay that answers it after
 * seconds, or never.
 *
 * <p>The limit moves by multiplicative steps, up by an eighth and down by
 * a tenth to a half (as TCP's congestion window does in slow start and on
 * loss, and Netflix's concurrency-limits), once per window of {@link Settings#target} length, on the mean latency
 * of the operations completed in it:
 *
 * <ul>
 *   <li>at most the target, the limit grows by an eighth (at least one), but only if at least
 *       half of it was in use, so a lightly loaded node does not grow a
 *       limit it never tested;</li>
 *   <li>above the target for a second window in a row, it is cut by the
 *       factor the target bears to the mean, at least by
 *       {@link Settings#backoff} and at most by half; a window with an
 *       operation that timed out halves it at once.</li>
 * </ul>
 *
 * <p>One slow window is not a queue either: a collector pause or a moment
 * without a CPU holds every operation in flight for its length, and the
 * window that sees them complete is slow though the next one, of
 * operations started after it, is not. A queue is what is still there a
 * window later (the standing queue of CoDel, RFC 8289). A window also ends
 * only once it holds {@value #MIN_SAMPLES} completions: after a cut the
 * operations admitted before it are left out, and the first one after it
 * alone, a remote key's several hops, decided the next cut (issue 33).
 *
 * <p>The mean of a window, not each operation, decides: an overlay answers
 * the keys a node owns in microseconds and the others after several hops,
 * and one slow hop is not a queue. An operation that started before the
 * last cut reports on the old limit and is left out of the windows after
 * it, so one burst admitted before a cut does not cut again and again.
 *
 * <p>It never falls below {@link Settings#floor}, so a node at low load is
 * never refused, nor grows past {@link Settings#max}.
 *
 * <p>Thread-safe without locks: admission is one volatile read and a
 * compare-and-set on the in-flight count; a completion adds to striped
 * counters, and the one that ends a window updates the limit. Time comes
 * in as {@link System#nanoTime} readings.
 */
public final class AdaptiveConcurrencyLimit {

    /**
     * @param floor   the limit never falls below this: the in-flight count a node at low load may always reach
     * @param initial the limit before any window ended
     * @param max     the limit never grows past this
     * @param target  the mean latency above which the limit is cut, and the length of a window; it must exceed
     *                the DHT's mean latency under the load it can carry
     * @param backoff the factor of the smallest cut, in (0.5, 1)
     */
    public record Settings(int floor, int initial, int max, Duration target, double backoff) {

        /**
         * 128 to 4,096 in flight, starting at 256; cut by at least 10 % when the mean of a 50 ms window passes
         * 50 ms. A REGISTER is two or three operations in a row and must be answered well within T1 (500 ms)
         * or every phone retransmits; a warmed overlay answers in a few milliseconds at its full rate, so a
         * mean of 50 ms is a queue. With 400 ms (most of T1), a 3-node cluster offered twice its capacity kept
         * queues of about a second in its overlay, where kademlia's lookups time out and ask again: goodput
         * 33-39 % of capacity for kademlia, 73-86 % for chord; with 150 ms 55 %, 100 ms 58 %, 50 ms 82 % and
         * 119 % (29 Nov, overload.sh). The floor keeps a node at low load from refusing anything: at
         * 1,000 REGISTERs/s a pause must hold 128 operations before one is refused. With a floor of 64 the
         * short target refused more while a node joined or died (kademlia 2.7 % and 0.84 % of 1,280/s in
         * OwnerRoutingChurnTest; 0.70 % and 1.07 % with 128).
         */
        public static final Settings DEFAULT = new Settings(128, 256, 4_096, Duration.ofMillis(50), 0.9);

        public Settings {
            if (floor < 1 || initial < floor || max < initial) {
                throw new IllegalArgumentException("the limits must satisfy 1 <= floor <= initial <= max, not "
                        + floor + ", " + initial + ", " + max);
            }
            if (target == null || target.isNegative() || target.isZero()) {
                throw new IllegalArgumentException("the latency target must be positive");
            }
            if (!(backoff > 0.5 && backoff < 1)) {
                throw new IllegalArgumentException("the backoff must be between 0.5 and 1, exclusive, not " + backoff);
            }
        }

        /** Settings that never refuse: for callers whose work is not to be limited. */
        public static Settings unbounded() {
            return new Settings(Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE, DEFAULT.target,
                    DEFAULT.backoff);
        }
    }

    private static final long NEVER = Long.MIN_VALUE;
    private static final double HALVE = 0.5;
    /**
     * A window under the target that used half the limit or more raises it by an eighth: the in-flight
     * count a rate needs is that rate times the latency (Little's law), so at thousands of operations a
     * second a latency that grows from milliseconds to a few hundred needs hundreds more places within
     * seconds, which growing by one a window would take minutes to give.
     */
    private static final int GROWTH_DIVISOR = 8;
    /** Completions a window needs before it ends, unless one of them timed out. */
    static final int MIN_SAMPLES = 16;

    private final int floor;
    private final int max;
    private final long targetNanos;
    private final double backoff;
    private final AtomicInteger limit;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final LongAdder refused = new LongAdder();
    private final AtomicLong windowStart = new AtomicLong(NEVER);
    private volatile long lastCut = NEVER;
    private final LongAdder completed = new LongAdder();
    private final LongAdder latencySum = new LongAdder();
    private final LongAdder timedOut = new LongAdder();
    private volatile boolean busy;
    /** Whether the last window that ended was over the target. */
    private volatile boolean lastSlow;

    public AdaptiveConcurrencyLimit(Settings settings) {
        this.floor = settings.floor();
        this.max = settings.max();
        this.targetNanos = settings.target().toNanos();
        this.backoff = settings.backoff();
        this.limit = new AtomicInteger(settings.initial());
    }

    /**
     * Takes a place for one operation if fewer than the limit are in flight;
     * false, counted as refused, when not. Every true must be followed by
     * exactly one {@link #release}.
     */
    public boolean tryAcquire() {
        int allowed = limit.get();
        for (int n = inFlight.get(); n < allowed; n = inFlight.get()) {
            if (inFlight.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        refused.increment();
        return false;
    }

    /**
     * Gives back the place of an operation started at {@code startedNanos}
     * that completed (answered, failed, or was given up on) at
     * {@code nowNanos}, and counts its latency into the current window.
     *
     * @param gaveUp whether the caller stopped waiting for it: a drop, which cuts the limit whatever the latency
     */
    public void release(long startedNanos, long nowNanos, boolean gaveUp) {
        int before = inFlight.getAndDecrement();
        long cut = lastCut;
        if (cut != NEVER && startedNanos - cut < 0) {
            return;
        }
        if (!busy && before * 2L >= limit.get()) {
            busy = true;
        }
        completed.increment();
        latencySum.add(nowNanos - startedNanos);
        if (gaveUp) {
            timedOut.increment();
        }
        long start = windowStart.get();
        if (start == NEVER) {
            windowStart.compareAndSet(NEVER, startedNanos);
        } else if (nowNanos - start >= targetNanos && (timedOut.sum() > 0 || completed.sum() >= MIN_SAMPLES)
                && windowStart.compareAndSet(start, nowNanos)) {
            endWindow(nowNanos);
        }
    }

    /** The number of operations that may be in flight now. */
    public int limit() {
        return limit.get();
    }

    /** The operations in flight now. */
    public int inFlight() {
        return inFlight.get();
    }

    /** Operations refused since the start because the limit was reached. */
    public long refused() {
        return refused.sum();
    }

    private void endWindow(long nowNanos) {
        long n = completed.sumThenReset();
        long sum = latencySum.sumThenReset();
        long drops = timedOut.sumThenReset();
        boolean used = busy;
        busy = false;
        if (n == 0) {
            return;
        }
        double mean = (double) sum / n;
        int current = limit.get();
        boolean slow = mean > targetNanos;
        boolean standing = slow && lastSlow;
        lastSlow = slow;
        if (drops > 0 || standing) {
            double factor = drops > 0 ? HALVE : Math.max(HALVE, Math.min(backoff, targetNanos / mean));
            limit.set(Math.max(floor, (int) (current * factor)));
            lastCut = nowNanos;
        } else if (!slow && used && current < max) {
            limit.set((int) Math.min(max, current + Math.max(1L, current / GROWTH_DIVISOR)));
        }
    }
}
