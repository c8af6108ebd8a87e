package org.p2psip.core.overlay;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Measures a loop's own lag into a {@link SchedulingLag}: one tick at a
 * time, each scheduled a period after the last one ran, so a loop that
 * stood still for seconds records one span of that length rather than a
 * burst of catch-up ticks. Stops when its executor refuses work (the node
 * has closed).
 */
public final class LagMonitor {

    private final ScheduledExecutorService loop;
    private final LongSupplier nanos;
    private final long periodNanos;
    private final SchedulingLag lag;

    /**
     * @param loop   the executor whose queue is measured (a node's owner thread)
     * @param nanos  the monotonic clock that loop's timers run on
     * @param period how often a tick runs when the loop keeps up
     */
    public LagMonitor(ScheduledExecutorService loop, LongSupplier nanos, Duration period, SchedulingLag lag) {
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("a lag tick period must be positive: " + period);
        }
        this.loop = loop;
        this.nanos = nanos;
        this.periodNanos = period.toNanos();
        this.lag = lag;
    }

    public SchedulingLag lag() {
        return lag;
    }

    public void start() {
        next();
    }

    private void tick() {
        lag.ran(nanos.getAsLong());
        next();
    }

    private void next() {
        try {
            lag.due(nanos.getAsLong() + periodNanos);
            loop.schedule(this::tick, periodNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // The loop has shut down with its node: nothing is left to measure.
            lag.ran(nanos.getAsLong());
        }
    }
}
