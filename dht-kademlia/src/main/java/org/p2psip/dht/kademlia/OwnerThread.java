package org.p2psip.dht.kademlia;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.p2psip.core.net.HostPort;

/**
 * A Kademlia node's single owner thread (its {@code OverlayRuntime}'s): all
 * mutable state — routing table, contact health, stored values, lookups,
 * write queues — is touched only here, one task at a time, so none of it
 * needs a lock. A running node's owner thread is its UDP socket's event
 * loop ({@code KademliaDhtProvider}), so a datagram's handling and the frames
 * it sends are queued on the thread already running, not handed to another:
 * with a thread of its own the owner and the socket's loop woke each other
 * for every datagram, and a three-node overlay at 688 REGISTERs/s spent more
 * of its nodes' CPU on those two threads than on SIP (issue 33). Also whether
 * the node has closed: once it has, work handed here fails instead of
 * hanging.
 */
final class OwnerThread {

    private final ScheduledExecutorService executor;
    private final HostPort node;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** @param node the node's overlay address, for messages */
    OwnerThread(ScheduledExecutorService executor, HostPort node) {
        this.executor = executor;
        this.node = node;
    }

    /**
     * Runs {@code work} on the owner thread and completes with what it
     * completes with (a {@link CompletionException} unwrapped); fails at once
     * when the node has closed.
     */
    <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> work) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(closedError());
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    work.get().whenComplete((v, e) -> {
                        if (e != null) {
                            result.completeExceptionally(unwrap(e));
                        } else {
                            result.complete(v);
                        }
                    });
                } catch (RuntimeException e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(closedError());
        }
        return result;
    }

    /**
     * Runs {@code task} on the owner thread; once the node has closed, runs
     * it inline, so that lookups in progress see the closed flag and fail
     * instead of hanging. The executor of stages that react to an answer.
     */
    void run(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            task.run();
        }
    }

    /** The executor itself, for stages that must not run inline once the node has closed. */
    Executor executor() {
        return executor;
    }

    /** Completes on the owner thread after the pause; fails if the node closes first. */
    CompletableFuture<Void> later(long pause, TimeUnit unit) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            executor.schedule(() -> done.complete(null), pause, unit);
        } catch (RejectedExecutionException e) {
            done.completeExceptionally(closedError());
        }
        return done;
    }

    /** Runs {@code task} after {@code initialMillis}, then {@code delayMillis} after each run ends. */
    void every(long initialMillis, long delayMillis, Runnable task) {
        executor.scheduleWithFixedDelay(task, initialMillis, delayMillis, TimeUnit.MILLISECONDS);
    }

    boolean closed() {
        return closed.get();
    }

    /** Marks the node closed; true for the one call that did. */
    boolean markClosed() {
        return closed.compareAndSet(false, true);
    }

    /**
     * Stops the thread, dropping whatever was queued; where it is the
     * transport's loop, closing the transport has already stopped it.
     */
    void stop() {
        executor.shutdownNow();
    }

    IllegalStateException closedError() {
        return new IllegalStateException("kademlia node " + node + " is closed");
    }

    /** The failure a stage saw, without the {@link CompletionException} that carried it. */
    static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }
}
