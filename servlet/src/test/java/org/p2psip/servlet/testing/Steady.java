package org.p2psip.servlet.testing;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/** Waits, with a deadline, for a counter to stop moving. */
public final class Steady {

    private static final long SAMPLE_MILLIS = 50;

    private Steady() {
    }

    /**
     * The value of {@code counter} once it has not changed for {@code quiet};
     * fails when it is still changing after {@code limit}.
     */
    public static long await(LongSupplier counter, Duration quiet, Duration limit) throws InterruptedException {
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "steady-sampler");
            t.setDaemon(true);
            return t;
        });
        CompletableFuture<Long> settled = new CompletableFuture<>();
        long[] last = {counter.getAsLong()};
        long[] since = {System.nanoTime()};
        sampler.scheduleAtFixedRate(() -> {
            long now = counter.getAsLong();
            if (now != last[0]) {
                last[0] = now;
                since[0] = System.nanoTime();
            } else if (System.nanoTime() - since[0] >= quiet.toNanos()) {
                settled.complete(now);
            }
        }, SAMPLE_MILLIS, SAMPLE_MILLIS, TimeUnit.MILLISECONDS);
        try {
            return settled.get(limit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("still changing after " + limit.toSeconds() + " s: " + counter.getAsLong());
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } finally {
            sampler.shutdownNow();
        }
    }
}
