package org.p2psip.core.testing;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Waits with a deadline, the one way every test here polls: for a sampled
 * value to reach a target, or for a condition to hold.
 */
public final class Eventually {

    private static final long SAMPLE_MILLIS = 50;
    private static final long POLL_MILLIS = 20;

    private Eventually() {
    }

    /**
     * The first sample of {@code value} that is at least {@code target}, or
     * the last sample when {@code limit} passes first (the caller asserts on
     * it). An error thrown while sampling is rethrown here.
     */
    public static long atLeast(LongSupplier value, long target, Duration limit) throws InterruptedException {
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "eventually-sampler");
            t.setDaemon(true);
            return t;
        });
        CompletableFuture<Long> reached = new CompletableFuture<>();
        long[] last = {Long.MIN_VALUE};
        sampler.scheduleAtFixedRate(() -> {
            try {
                long now = value.getAsLong();
                last[0] = now;
                if (now >= target) {
                    reached.complete(now);
                }
            } catch (Throwable e) {
                reached.completeExceptionally(e);
            }
        }, 0, SAMPLE_MILLIS, TimeUnit.MILLISECONDS);
        try {
            return reached.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return last[0];
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(e.getCause());
        } finally {
            sampler.shutdownNow();
        }
    }

    /**
     * Returns once {@code condition} holds, checking every {@value #POLL_MILLIS}
     * ms; throws an AssertionError naming {@code what} (worked out only then,
     * so it can describe the state at that moment) when {@code limit} passes
     * first. An error thrown by the condition goes straight through.
     */
    public static void until(BooleanSupplier condition, Duration limit, Supplier<String> what) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + limit.toMillis() + " ms waiting for " + what.get());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS));
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what.get());
            }
        }
    }

    /** As {@link #until(BooleanSupplier, Duration, Supplier)} with a fixed description. */
    public static void until(BooleanSupplier condition, Duration limit, String what) {
        until(condition, limit, () -> what);
    }
}
