package org.p2psip.core.overlay;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;

/**
 * What an overlay node runs on besides the network: the single owner thread
 * that holds all of its mutable state, the wall clock (expiry, versions), a
 * monotonic clock (deadlines, pauses) and the seed of its randomness.
 *
 * <p>They come in from outside so that a node's protocol runs unchanged on
 * a real thread and clocks ({@link #threaded}) or under a virtual clock in a
 * deterministic simulation, where one seed replays one run.
 *
 * @param owner   runs every touch of the node's state, one task at a time
 * @param clock   wall-clock time
 * @param nanos   monotonic time in nanoseconds, as {@link System#nanoTime()}
 * @param seed    seeds the node's random choices (lookup order, pauses)
 */
public record OverlayRuntime(ScheduledExecutorService owner, Clock clock, LongSupplier nanos, long seed) {

    public OverlayRuntime {
        if (owner == null || clock == null || nanos == null) {
            throw new IllegalArgumentException("owner, clock and nanos are required");
        }
    }

    /** A daemon owner thread named {@code threadName}, the given wall clock, {@link System#nanoTime()}, a random seed. */
    public static OverlayRuntime threaded(String threadName, Clock clock) {
        ScheduledExecutorService owner = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        return new OverlayRuntime(owner, clock, System::nanoTime, new SecureRandom().nextLong());
    }

    /**
     * The owner thread is {@code loop}, a transport's event loop that the
     * node shares ({@link NettyUdpOverlayTransport#eventLoop()}); the given wall
     * clock, {@link System#nanoTime()}, a random seed. The node's work then
     * shares the loop with its socket, so it must never block.
     */
    public static OverlayRuntime onLoop(ScheduledExecutorService loop, Clock clock) {
        return new OverlayRuntime(loop, clock, System::nanoTime, new SecureRandom().nextLong());
    }

    /** The monotonic clock now, in milliseconds. */
    public long millis() {
        return nanos.getAsLong() / 1_000_000;
    }
}
