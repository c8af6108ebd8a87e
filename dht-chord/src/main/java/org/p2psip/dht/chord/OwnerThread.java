package org.p2psip.dht.chord;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A Chord node's single owner thread (the {@code OverlayRuntime}'s): every
 * touch of its ring state, store and range custody runs here, one task at a
 * time, so none of them needs a lock; Netty's I/O threads only decode a
 * request and hand it over. Also whether the node has closed: once it has,
 * work handed here fails instead of hanging.
 *
 * <p>It also notices when it stood still: a long GC pause or a starved
 * machine can stop it for longer than its peers wait before they take a
 * silent node for dead and serve its range. Every task first checks how long
 * it has been since the last one ran (the maintenance round runs every
 * stabilize period, so on a live node that is never long); past the bound,
 * the stall handler runs before the task does.
 */
final class OwnerThread {

    private final ScheduledExecutorService executor;
    private final LongSupplier nanos;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Executor watchedExecutor;
    private long stallNanos = Long.MAX_VALUE;
    private Runnable onStall = () -> { };
    private long lastTaskNanos;

    OwnerThread(ScheduledExecutorService executor, LongSupplier nanos) {
        this.executor = executor;
        this.nanos = nanos;
        this.watchedExecutor = task -> executor.execute(watched(task));
        this.lastTaskNanos = nanos.getAsLong();
    }

    /** From now on, a task that finds no task ran for longer than {@code bound} first runs {@code onStall}. */
    void watchForStalls(Duration bound, Runnable onStall) {
        this.stallNanos = bound.toNanos();
        this.onStall = onStall;
        this.lastTaskNanos = nanos.getAsLong();
    }

    private Runnable watched(Runnable task) {
        return () -> {
            long now = nanos.getAsLong();
            long idle = now - lastTaskNanos;
            lastTaskNanos = now;
            if (idle > stallNanos) {
                onStall.run();
            }
            task.run();
        };
    }

    /** For the {@code *Async} stages that must continue on the owner thread. */
    Executor executor() {
        return watchedExecutor;
    }

    /** Runs {@code action} on the owner thread; fails if the node has closed. */
    <T> CompletableFuture<T> supply(Supplier<T> action) {
        try {
            return CompletableFuture.supplyAsync(action, watchedExecutor);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new IllegalStateException("chord node is closed"));
        }
    }

    /** As {@link #supply}, for an action that answers later. */
    <T> CompletableFuture<T> compose(Supplier<CompletableFuture<T>> action) {
        return supply(action).thenCompose(f -> f);
    }

    /** Runs {@code task} on the owner thread after {@code pause}; false if the node has closed. */
    boolean later(Duration pause, Runnable task) {
        try {
            executor.schedule(watched(task), pause.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Runs {@code task} now and then {@code period} after each run ends. */
    void every(Duration period, Runnable task) {
        executor.scheduleWithFixedDelay(watched(task), 0, period.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Queues {@code task} behind whatever the owner thread has to do. */
    void execute(Runnable task) {
        executor.execute(watched(task));
    }

    boolean closed() {
        return closed.get();
    }

    /** Marks the node closed; true for the one call that did. */
    boolean markClosed() {
        return closed.compareAndSet(false, true);
    }

    /** Marks the node closed and stops the thread at once, dropping whatever was queued. */
    void stop() {
        closed.set(true);
        executor.shutdownNow();
    }
}
