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
 */
public final class TimeoutSuspicion<K> {

    /** Timeouts in a row, at least, before a peer is taken for dead. */
    public static final int TIMEOUTS = 3;

    /** How long a peer has been silent: its first unanswered timeout, and how many followed. */
    private record Silence(long firstNanos, int timeouts) {
    }

    private final long windowNanos;
    private final Map<K, Silence> silent = new HashMap<>();

    /** {@code window}: the least time from a peer's first timeout to the one that condemns it; zero counts only. */
    public TimeoutSuspicion(Duration window) {
        if (window.isNegative()) {
            throw new IllegalArgumentException("a suspicion window cannot be negative: " + window);
        }
        this.windowNanos = window.toNanos();
    }

    /** A call to {@code peer} timed out at {@code nowNanos}: true when the peer is now taken for dead. */
    public boolean timedOut(K peer, long nowNanos) {
        Silence s = silent.merge(peer, new Silence(nowNanos, 1),
                (old, next) -> new Silence(old.firstNanos(), old.timeouts() + 1));
        if (s.timeouts() >= TIMEOUTS && nowNanos - s.firstNanos() >= windowNanos) {
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
