package org.p2psip.balancer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Slow start, as HAProxy's {@code slowstart} and Envoy's slow-start mode
 * do it (issue 33): a node that turns ready after warming up, or comes back
 * after being down, gets a share of the new requests it would get that
 * grows linearly from {@value #FIRST_SHARE} to all of them over a window.
 * A JVM that has just started answers its first requests slowly (its code
 * is not compiled yet, its caches are cold); handing it its full share at
 * once would make it the slowest node exactly when it is least able to
 * catch up. Pure logic, time passed in as {@link System#nanoTime} values.
 *
 * <p>Whether a request is one of the ramping node's share is a pure
 * function of the request's key and the node, not a coin toss: a
 * retransmission meets the same decision as the original, and as the share
 * grows the keys already given to the node stay with it while more join.
 * A request the ramp skips goes to the next node in the policy's order; when
 * every candidate skips it (every node ramps at once, as after a restart of
 * the whole cluster), it goes to the first after all, so slow start never
 * refuses a request and never throttles the cluster as a whole.
 *
 * <p>Written by the health checker on the UDP thread, read by every router
 * thread: each node's ramp is the start time in an atomic array.
 */
public final class SlowStart {

    /** The share of its new requests a node gets the moment its ramp starts. */
    public static final double FIRST_SHARE = 0.1;

    private static final long NONE = Long.MIN_VALUE;
    /** Draws are compared in ten-thousandths of the share. */
    private static final int SCALE = 10_000;
    private static final long RAMP_SALT = 0x736c6f77L;

    private final long windowNanos;
    private final AtomicLongArray startedAt;
    /** No node ramps at or after this nanoTime, unless a ramp began since; a cheap test for the usual case. */
    private volatile long quietAfter = NONE;
    private volatile boolean everRamped;

    /**
     * @param nodes  how many nodes there are
     * @param window how long a ramp takes; zero turns slow start off
     */
    public SlowStart(int nodes, Duration window) {
        if (window.isNegative()) {
            throw new IllegalArgumentException("the slow-start window must not be negative");
        }
        this.windowNanos = window.toNanos();
        this.startedAt = new AtomicLongArray(nodes);
        for (int i = 0; i < nodes; i++) {
            startedAt.set(i, NONE);
        }
    }

    /** Slow start turned off: every node always gets its full share. */
    public static SlowStart off(int nodes) {
        return new SlowStart(nodes, Duration.ZERO);
    }

    /** How long a ramp takes; zero when slow start is off. */
    public Duration window() {
        return Duration.ofNanos(windowNanos);
    }

    /** Node {@code node} started taking new requests at {@code now}: its ramp starts, unless slow start is off. */
    public void begin(int node, long now) {
        if (windowNanos == 0) {
            return;
        }
        startedAt.set(node, now == NONE ? NONE + 1 : now);
        long until = now + windowNanos;
        if (!everRamped || until - quietAfter > 0) {
            quietAfter = until;
        }
        everRamped = true;
    }

    /** Node {@code node} stopped taking new requests (down, or not ready): its ramp, if any, is void. */
    public void cancel(int node) {
        startedAt.set(node, NONE);
    }

    /**
     * Whether node {@code node}'s ramp has run its course at {@code now}; true
     * once per ramp (it is then forgotten), so the caller can say so once.
     */
    public boolean finish(int node, long now) {
        long start = startedAt.get(node);
        return start != NONE && now - start >= windowNanos && startedAt.compareAndSet(node, start, NONE);
    }

    /** Whether no node might be ramping at {@code now}: true lets routing skip every check. */
    public boolean quiet(long now) {
        return !everRamped || now - quietAfter >= 0;
    }

    /**
     * The share of the new requests it would get that node {@code node} is
     * given at {@code now}: from {@value #FIRST_SHARE} when its ramp starts
     * to 1 at its end, 1 when it is not ramping.
     */
    public double share(int node, long now) {
        long start = startedAt.get(node);
        if (start == NONE) {
            return 1.0;
        }
        long elapsed = now - start;
        if (elapsed >= windowNanos) {
            return 1.0;
        }
        // A router thread may read a clock taken just before the ramp began: that is its first instant.
        double progress = Math.max(0, elapsed) / (double) windowNanos;
        return FIRST_SHARE + (1 - FIRST_SHARE) * progress;
    }

    /** Whether a request keyed by {@code key} is one of node {@code node}'s share at {@code now}. */
    public boolean admits(NodeSet.Node node, long key, long now) {
        double share = share(node.index(), now);
        return share >= 1.0 || draw(key, node) < share * SCALE;
    }

    /**
     * {@code ranked} with the nodes whose ramp skips this request moved
     * behind the others, each group in its own order: the first is where it
     * goes unless that node sheds load ({@link NodeLoad}).
     *
     * @param ranked   candidates, most preferred first
     * @param firstKey the key the first candidate's share is drawn by (the AOR's under {@code owner}, whose
     *                 claimant comes first)
     * @param key      the key every other candidate's share is drawn by (the policy's hash key)
     */
    public List<NodeSet.Node> order(List<NodeSet.Node> ranked, long firstKey, long key, long now) {
        List<NodeSet.Node> admitted = new ArrayList<>(ranked.size());
        List<NodeSet.Node> skipped = new ArrayList<>(0);
        for (int i = 0; i < ranked.size(); i++) {
            NodeSet.Node n = ranked.get(i);
            (admits(n, i == 0 ? firstKey : key, now) ? admitted : skipped).add(n);
        }
        admitted.addAll(skipped);
        return admitted;
    }

    /** 0..9999, uniform over keys, independent between nodes and of {@link NodeLoad}'s draw. */
    static int draw(long key, NodeSet.Node node) {
        return (int) Long.remainderUnsigned(Fnv.mix(key ^ node.seed() ^ RAMP_SALT), SCALE);
    }
}
