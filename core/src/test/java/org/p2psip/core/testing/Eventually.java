package org.p2psip.core.testing;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/** Waits, with a deadline and no sleeping thread, for a sampled value to reach a target. */
public final class Eventually {

    private static final long SAMPLE_MILLIS = 50;

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
}
