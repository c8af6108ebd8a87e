package org.p2psip.dht.chord;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A Chord node's single owner thread (the {@code OverlayRuntime}'s): every
 * touch of its ring state, store and range custody runs here, one task at a
 * time, so none of them needs a lock; Netty's I/O threads only decode a
 * request and hand it over. Also whether the node has closed: once it has,
 * work handed here fails instead of hanging.
 */
final class OwnerThread {

    private final ScheduledExecutorService executor;
    private final AtomicBoolean closed = new AtomicBoolean();

    OwnerThread(ScheduledExecutorService executor) {
        this.executor = executor;
    }

    /** For the {@code *Async} stages that must continue on the owner thread. */
    Executor executor() {
        return executor;
    }

    /** Runs {@code action} on the owner thread; fails if the node has closed. */
    <T> CompletableFuture<T> supply(Supplier<T> action) {
        try {
            return CompletableFuture.supplyAsync(action, executor);
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
            executor.schedule(task, pause.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Runs {@code task} now and then {@code period} after each run ends. */
    void every(Duration period, Runnable task) {
        executor.scheduleWithFixedDelay(task, 0, period.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Queues {@code task} behind whatever the owner thread has to do. */
    void execute(Runnable task) {
        executor.execute(task);
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
