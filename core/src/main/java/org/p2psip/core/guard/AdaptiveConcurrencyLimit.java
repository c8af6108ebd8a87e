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
 * within its client's first retransmission interval (T1 = 500 ms), instead
 * of being queued into an overlay that answers it after seconds, or never.
 *
 * <p>The limit moves by additive increase and multiplicative decrease
 * (AIMD, as TCP's congestion window and Netflix's concurrency-limits do),
 * driven by the latency of completed operations against a target well
 * under T1:
 *
 * <ul>
 *   <li>at most half the target, the DHT is near its unloaded latency: the
 *       limit grows by one per limit's worth of such completions (one per
 *       round trip), but only while at least half of it is in use, so a
 *       lightly loaded node does not grow a limit it never tested;</li>
 *   <li>between half the target and the target, it holds;</li>
 *   <li>above the target, or timed out, it is cut by the factor the target
 *       bears to the latency, at least by {@link Settings#backoff} and at
 *       most by half (a timeout halves it). Only an operation that started
 *       after the last cut may cut again: those admitted before it report
 *       on the old limit, and letting each of them cut would take the limit
 *       to its floor in one burst.</li>
 * </ul>
 *
 * <p>It never falls below {@link Settings#floor}, so a node at low load is
 * never refused, nor grows past {@link Settings#max}.
 *
 * <p>Thread-safe without locks: admission is one volatile read and a
 * compare-and-set on the in-flight count; a completion updates the limit
 * with a compare-and-set. Time comes in as {@link System#nanoTime} readings.
 */
public final class AdaptiveConcurrencyLimit {

    /**
     * @param floor   the limit never falls below this: the in-flight count a node at low load may always reach
     * @param initial the limit before any operation completed
     * @param max     the limit never grows past this
     * @param target  the latency above which the limit is cut; it must exceed the DHT's unloaded latency
     * @param backoff the factor of the smallest cut, in (0.5, 1)
     */
    public record Settings(int floor, int initial, int max, Duration target, double backoff) {

        /** 32 to 4,096 in flight, starting at 64; cut above 200 ms (T1 is 500 ms) by at least 10 %. */
        public static final Settings DEFAULT = new Settings(32, 64, 4_096, Duration.ofMillis(200), 0.9);

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

    private final int floor;
    private final int max;
    private final long targetNanos;
    private final long growBelowNanos;
    private final double backoff;
    private final AtomicInteger inFlight = new AtomicInteger();
    /** The limit as a fraction, so that it can grow by 1/limit; {@link Double#doubleToRawLongBits} of it. */
    private final AtomicLong estimate;
    private final AtomicLong lastCut = new AtomicLong(NEVER);
    private final LongAdder refused = new LongAdder();

    public AdaptiveConcurrencyLimit(Settings settings) {
        this.floor = settings.floor();
        this.max = settings.max();
        this.targetNanos = settings.target().toNanos();
        this.growBelowNanos = targetNanos / 2;
        this.backoff = settings.backoff();
        this.estimate = new AtomicLong(Double.doubleToRawLongBits(settings.initial()));
    }

    /**
     * Takes a place for one operation if fewer than the limit are in flight;
     * false, counted as refused, when not. Every true must be followed by
     * exactly one {@link #release}.
     */
    public boolean tryAcquire() {
        int limit = limit();
        for (int n = inFlight.get(); n < limit; n = inFlight.get()) {
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
     * {@code nowNanos}, and adapts the limit to its latency.
     *
     * @param timedOut whether the caller stopped waiting for it: a drop, which cuts the limit whatever the latency
     */
    public void release(long startedNanos, long nowNanos, boolean timedOut) {
        int before = inFlight.getAndDecrement();
        long latency = nowNanos - startedNanos;
        if (timedOut || latency > targetNanos) {
            cut(startedNanos, nowNanos, timedOut ? HALVE : Math.max(HALVE, Math.min(backoff,
                    (double) targetNanos / latency)));
        } else if (latency <= growBelowNanos) {
            grow(before);
        }
    }

    /** The number of operations that may be in flight now. */
    public int limit() {
        return (int) Double.longBitsToDouble(estimate.get());
    }

    /** The operations in flight now. */
    public int inFlight() {
        return inFlight.get();
    }

    /** Operations refused since the start because the limit was reached. */
    public long refused() {
        return refused.sum();
    }

    private void grow(int inFlightBefore) {
        while (true) {
            long bits = estimate.get();
            double current = Double.longBitsToDouble(bits);
            if ((double) inFlightBefore * 2 < current || current >= max) {
                return;
            }
            double next = Math.min(max, current + 1 / current);
            if (estimate.compareAndSet(bits, Double.doubleToRawLongBits(next))) {
                return;
            }
        }
    }

    private void cut(long startedNanos, long nowNanos, double factor) {
        long last = lastCut.get();
        if (last != NEVER && startedNanos - last <= 0) {
            return;
        }
        if (!lastCut.compareAndSet(last, nowNanos)) {
            return;
        }
        while (true) {
            long bits = estimate.get();
            double next = Math.max(floor, Double.longBitsToDouble(bits) * factor);
            if (estimate.compareAndSet(bits, Double.doubleToRawLongBits(next))) {
                return;
            }
        }
    }
}
