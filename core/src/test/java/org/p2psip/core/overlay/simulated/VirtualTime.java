package org.p2psip.core.overlay.simulated;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * A discrete-event loop with a virtual clock: everything a simulated
 * overlay does — owner-thread tasks, message deliveries, timeouts — is an
 * event at a virtual instant, run one at a time on the caller's thread in
 * (time, order of scheduling) order. Time moves only from one event to the
 * next, so a run is a function of its inputs and seeds, and minutes of
 * protocol take milliseconds.
 */
public final class VirtualTime {

    /** The wall-clock instant virtual time 0 stands for. */
    public static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");

    private final PriorityQueue<Event> queue = new PriorityQueue<>();
    private long now;
    private long sequence;
    private long executed;

    private record Event(long at, long order, Runnable task) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            return at != o.at ? Long.compare(at, o.at) : Long.compare(order, o.order);
        }
    }

    /** Virtual nanoseconds since the start. */
    public long nanos() {
        return now;
    }

    /** A wall clock that reads {@link #EPOCH} plus virtual time. */
    public Clock clock() {
        return new Clock() {
            @Override
            public Instant instant() {
                return EPOCH.plusNanos(now);
            }

            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }
        };
    }

    /** Runs {@code task} {@code delayNanos} from now (not before any task already due at that instant). */
    public void at(long delayNanos, Runnable task) {
        queue.add(new Event(now + Math.max(0, delayNanos), sequence++, task));
    }

    /** A new owner executor on this loop, as one node's single thread. */
    public VirtualExecutor executor(String name) {
        return new VirtualExecutor(this, name);
    }

    /** Events run so far. */
    public long executed() {
        return executed;
    }

    /** Runs every event due within {@code span}, then sets the clock to its end. */
    public void runFor(Duration span) {
        long end = now + span.toNanos();
        while (!queue.isEmpty() && queue.peek().at() <= end) {
            step();
        }
        now = Math.max(now, end);
    }

    /**
     * Runs events until {@code done} holds or {@code span} of virtual time
     * has passed; returns whether it holds.
     */
    public boolean runUntil(BooleanSupplier done, Duration span) {
        long end = now + span.toNanos();
        while (!done.getAsBoolean()) {
            if (queue.isEmpty() || queue.peek().at() > end) {
                now = Math.max(now, end);
                return done.getAsBoolean();
            }
            step();
        }
        return true;
    }

    /** Runs events until {@code future} completes or {@code span} has passed; returns whether it completed. */
    public boolean runUntilDone(CompletableFuture<?> future, Duration span) {
        return runUntil(future::isDone, span);
    }

    private void step() {
        Event e = queue.poll();
        now = Math.max(now, e.at());
        executed++;
        e.task().run();
    }
}
