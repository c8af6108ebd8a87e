package org.p2psip.core.overlay.simulated;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.MDC;

/**
 * One simulated node's owner thread on a {@link VirtualTime} loop. Like a
 * single-thread scheduled executor it runs its tasks one at a time in order;
 * unlike one it can be paused — its tasks wait until the pause ends, as a
 * process stopped by a long GC pause would — and after {@link #shutdownNow}
 * it drops what is queued and refuses new work, as a killed process would.
 *
 * <p>A task that throws is recorded ({@link #failures()}): on a real
 * scheduled executor the exception would vanish into the task's future and
 * a periodic task would silently stop, which a simulation should expose.
 */
public final class VirtualExecutor extends AbstractExecutorService implements ScheduledExecutorService {

    private final VirtualTime time;
    private final String name;
    private final List<Throwable> failures = new ArrayList<>();
    private boolean shutdown;
    private long pausedUntil;

    VirtualExecutor(VirtualTime time, String name) {
        this.time = time;
        this.name = name;
    }

    /** Holds every task of this executor until {@code nanos} of virtual time from now have passed. */
    public void pause(long nanos) {
        pausedUntil = Math.max(pausedUntil, time.nanos() + nanos);
    }

    /** Whether a pause is holding this executor now. */
    public boolean paused() {
        return time.nanos() < pausedUntil;
    }

    /** Exceptions that escaped tasks, in order. */
    public List<Throwable> failures() {
        return List.copyOf(failures);
    }

    @Override
    public String toString() {
        return "VirtualExecutor[" + name + "]";
    }

    private void submitAt(long delayNanos, Task task) {
        if (shutdown) {
            throw new RejectedExecutionException(name + " is shut down");
        }
        time.at(delayNanos, () -> runWhenAwake(task));
    }

    private void runWhenAwake(Task task) {
        if (shutdown || task.isCancelled()) {
            return;
        }
        if (paused()) {
            time.at(pausedUntil - time.nanos(), () -> runWhenAwake(task));
            return;
        }
        // Log lines name the node and the virtual time they happened at, so a seed's trace reads in order.
        MDC.put("node", name);
        MDC.put("vt", String.format("%9.3f", time.nanos() / 1e9));
        try {
            task.run();
        } finally {
            MDC.remove("node");
            MDC.remove("vt");
        }
    }

    @Override
    public void execute(Runnable command) {
        submitAt(0, new Task(command, 0, 0));
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        Task t = new Task(command, time.nanos() + unit.toNanos(delay), 0);
        submitAt(unit.toNanos(delay), t);
        return t;
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        CompletableFuture<V> result = new CompletableFuture<>();
        Task t = new Task(() -> {
            try {
                result.complete(callable.call());
            } catch (Exception e) {
                result.completeExceptionally(e);
            }
        }, time.nanos() + unit.toNanos(delay), 0);
        submitAt(unit.toNanos(delay), t);
        return new CallableTask<>(t, result);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return scheduleWithFixedDelay(command, initialDelay, period, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        Task t = new Task(command, time.nanos() + unit.toNanos(initialDelay), unit.toNanos(delay));
        submitAt(unit.toNanos(initialDelay), t);
        return t;
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return shutdown;
    }

    /** A task, repeated every {@code period} nanoseconds after each run when the period is positive. */
    private final class Task implements ScheduledFuture<Object>, Runnable {
        private final Runnable command;
        private final long period;
        private long dueAt;
        private boolean cancelled;
        private boolean done;

        Task(Runnable command, long dueAt, long period) {
            this.command = command;
            this.dueAt = dueAt;
            this.period = period;
        }

        @Override
        public void run() {
            try {
                command.run();
            } catch (RuntimeException | Error e) {
                failures.add(e);
                done = true;
                return;
            }
            if (period > 0 && !cancelled && !shutdown) {
                dueAt = time.nanos() + period;
                submitAt(period, this);
            } else {
                done = true;
            }
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueAt - time.nanos(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean was = !done && !cancelled;
            cancelled = true;
            return was;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return done || cancelled;
        }

        @Override
        public Object get() {
            throw new UnsupportedOperationException("blocking on a virtual task would stop the simulation");
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException("blocking on a virtual task would stop the simulation");
        }
    }

    /** A scheduled callable: the task for timing and cancelling, the future for its value. */
    private record CallableTask<V>(Task task, CompletableFuture<V> result) implements ScheduledFuture<V> {
        @Override
        public long getDelay(TimeUnit unit) {
            return task.getDelay(unit);
        }

        @Override
        public int compareTo(Delayed o) {
            return task.compareTo(o);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return task.cancel(mayInterruptIfRunning);
        }

        @Override
        public boolean isCancelled() {
            return task.isCancelled();
        }

        @Override
        public boolean isDone() {
            return result.isDone() || task.isCancelled();
        }

        @Override
        public V get() throws InterruptedException, ExecutionException {
            if (!result.isDone()) {
                throw new UnsupportedOperationException("blocking on a virtual task would stop the simulation");
            }
            return result.get();
        }

        @Override
        public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
            return get();
        }
    }
}
