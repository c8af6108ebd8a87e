package org.p2psip.servlet.node;

import java.time.Duration;
import java.util.Optional;

/**
 * Whether a node is ready to be given its share of the load, and how long it
 * took to become so.
 *
 * <p>A node whose sockets are bound answers requests, but for its first
 * seconds it does so at a small fraction of its warmed rate: its code is
 * interpreted until the JIT compiler has seen it run, and on a machine whose
 * cores are shared that compilation competes with the requests. A node that
 * warms up first says it is not ready until then: its OPTIONS answer is a 503
 * with Retry-After (RFC 3261 §21.5.4) that the balancer reads as "alive, send
 * nothing yet", {@code GET /ready} is 503, and the start line operators and
 * scripts wait for is printed only afterwards.
 *
 * <p>Thread-safe: the starting thread marks it ready, SIP and HTTP threads read it.
 */
public final class NodeReadiness {

    private final long startedNanos;
    private volatile long readyNanos;
    private volatile boolean ready;

    private NodeReadiness(long startedNanos, boolean ready) {
        this.startedNanos = startedNanos;
        this.readyNanos = startedNanos;
        this.ready = ready;
    }

    /** A node that is ready as soon as it answers: tests and embedded nodes that warm nothing. */
    public static NodeReadiness immediately(long nowNanos) {
        return new NodeReadiness(nowNanos, true);
    }

    /** A node started at {@code startedNanos} that is not ready until {@link #markReady}. */
    public static NodeReadiness warming(long startedNanos) {
        return new NodeReadiness(startedNanos, false);
    }

    /** Marks the node ready at {@code nowNanos}; later calls change nothing. */
    public synchronized void markReady(long nowNanos) {
        if (!ready) {
            readyNanos = nowNanos;
            ready = true;
        }
    }

    public boolean isReady() {
        return ready;
    }

    /** From the start to ready; empty while the node is not ready. */
    public Optional<Duration> timeToReady() {
        return ready ? Optional.of(Duration.ofNanos(readyNanos - startedNanos)) : Optional.empty();
    }
}
