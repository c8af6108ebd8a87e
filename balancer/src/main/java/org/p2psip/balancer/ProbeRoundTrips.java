package org.p2psip.balancer;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How long each node took to answer its last answered health probe (the
 * OPTIONS of {@link HealthChecker}), for a status page and a gauge: the
 * balancer's own view of each node's responsiveness, measured on the path
 * requests take. Written by the UDP event loop, read from any thread.
 */
public final class ProbeRoundTrips {

    private static final long NONE = -1;

    private final AtomicLongArray nanos;

    public ProbeRoundTrips(int nodes) {
        if (nodes < 1) {
            throw new IllegalArgumentException("a balancer has at least one node, not " + nodes);
        }
        nanos = new AtomicLongArray(nodes);
        for (int i = 0; i < nodes; i++) {
            nanos.set(i, NONE);
        }
    }

    /** The node with {@code index} answered a probe {@code roundTripNanos} after it was sent. */
    void record(int index, long roundTripNanos) {
        nanos.set(index, Math.max(0, roundTripNanos));
    }

    /** The last round trip of the node with {@code index} in nanoseconds, or -1 before its first answer. */
    public long lastNanos(int index) {
        return nanos.get(index);
    }
}
