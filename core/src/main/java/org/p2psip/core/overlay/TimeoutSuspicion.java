package org.p2psip.core.overlay;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * When a peer whose calls time out is taken for dead: after
 * {@value #TIMEOUTS} timeouts with no answer in between, the first and the
 * last at least a window apart. Pure: the caller passes the monotonic time.
 *
 * <p>Counting timeouts alone, as a round-based detector does, goes wrong
 * under load: a node's maintenance calls and the lookups and writes of its
 * key operations can all be waiting on one slow peer at once (a chord
 * successor, a kademlia contact), and their timeouts land together, so
 * three of them would condemn a live node within a single RPC timeout. The
 * window makes the verdict depend on how long the
 * peer stayed silent, whatever the number of calls that noticed. A peer that
 * refuses or has closed its connection is gone at once; that is the caller's
 * rule, not this one's.
 *
 * <p>A node that is itself behind times out calls to live peers: their
 * answers wait in its own queues. So, given the node's {@link SchedulingLag}
 * (the self-monitoring phi-accrual detectors do in Akka and Cassandra), a
 * timeout whose wait this node spent behind for at least
 * {@value #EXCUSED_SHARE_DIVISOR}th of it is excused (it counts neither
 * way), and the window counts only the time this node kept up: time spent
 * behind extends it. A node that never keeps up therefore never writes a
 * peer off for timeouts alone; refusals still do.
 */
public final class TimeoutSuspicion<K> {

    /** Timeouts in a row, at least, before a peer is taken for dead. */
    public static final int TIMEOUTS = 3;

    /** A timeout whose wait this node spent behind for at least this fraction (1/n) of it is excused. */
    public static final int EXCUSED_SHARE_DIVISOR = 4;

    /** How long a peer has been silent: its first unanswered timeout, and how many followed. */
    private record Silence(long firstNanos, int timeouts) {
    }

    private final long windowNanos;
    private final long waitNanos;
    private final SchedulingLag lag;
    private final Map<K, Silence> silent = new HashMap<>();
    private long excused;

    /**
     * A detector blind to this node's own lag.
     *
     * @param window the least time from a peer's first timeout to the one that condemns it; zero counts only
     */
    public TimeoutSuspicion(Duration window) {
        this(window, Duration.ZERO, null);
    }

    /**
     * @param window the least time, this node's own lag left out, from a peer's first timeout to the one that
     *               condemns it; zero counts only
     * @param wait   how long a call waits before it times out (the RPC timeout)
     * @param lag    this node's own lag; {@code null} for none
     */
    public TimeoutSuspicion(Duration window, Duration wait, SchedulingLag lag) {
        if (window.isNegative() || wait.isNegative()) {
            throw new IllegalArgumentException("a suspicion window or wait cannot be negative: " + window + ", "
                    + wait);
        }
        this.windowNanos = window.toNanos();
        this.waitNanos = wait.toNanos();
        this.lag = lag;
    }

    /**
     * A call to {@code peer} timed out at {@code nowNanos}: true when the
     * peer is now taken for dead. Not counted when this node was behind for
     * a sizeable share of the call's wait ({@link #excuses}).
     */
    public boolean timedOut(K peer, long nowNanos) {
        if (excuses(nowNanos)) {
            excused++;
            return false;
        }
        return counted(peer, nowNanos, true);
    }

    /**
     * A call to {@code peer} failed otherwise than by a timeout, at
     * {@code nowNanos}, in a way the caller counts like one (a datagram
     * refused): neither excused nor given longer for this node's lag, which
     * does not explain it.
     */
    public boolean failed(K peer, long nowNanos) {
        return counted(peer, nowNanos, false);
    }

    /**
     * Whether a call that times out at {@code nowNanos} says more about this
     * node than about its peer: this node was behind for at least
     * 1/{@value #EXCUSED_SHARE_DIVISOR} of the call's wait.
     */
    public boolean excuses(long nowNanos) {
        if (lag == null || waitNanos == 0) {
            return false;
        }
        return lag.behindNanos(nowNanos - waitNanos, nowNanos) * EXCUSED_SHARE_DIVISOR >= waitNanos;
    }

    /** How many timeouts this node's lag has excused so far. */
    public long excusedTimeouts() {
        return excused;
    }

    private boolean counted(K peer, long nowNanos, boolean lagExtends) {
        Silence s = silent.merge(peer, new Silence(nowNanos, 1),
                (old, next) -> new Silence(old.firstNanos(), old.timeouts() + 1));
        long behind = lag == null || !lagExtends ? 0 : lag.behindNanos(s.firstNanos(), nowNanos);
        long keptUp = nowNanos - s.firstNanos() - behind;
        if (s.timeouts() >= TIMEOUTS && keptUp >= windowNanos) {
            silent.remove(peer);
            return true;
        }
        return false;
    }

    /** {@code peer} answered: its silence is over. */
    public void answered(K peer) {
        silent.remove(peer);
    }

    /** {@code peer} is taken for dead for another reason (a refusal): nothing to keep about it. */
    public void forgotten(K peer) {
        silent.remove(peer);
    }
}
