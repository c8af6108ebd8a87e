package org.p2psip.balancer;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * What the nodes have said about their load, and the decision it drives:
 * which node a new request goes to. Pure logic, time passed in.
 *
 * <p><b>503 with Retry-After</b> (RFC 3261 §21.5.4): the node gets no new
 * request for that long, at most {@link #MAX_HOLD} — a node that asked
 * for an hour and then recovered must not be lost for an hour — unless
 * every node is holding off, when they are used as if none were (each will
 * answer for itself, and the balancer knows no better node).
 *
 * <p><b>RFC 7339 loss algorithm</b>: a node that sent {@code oc=N} sheds
 * N % of the new requests it would get, for {@code oc-validity} (at most
 * {@link #MAX_HOLD}). Whether a request is shed is a pure function of its
 * transaction and the node, not a coin toss, so a retransmission meets the
 * same decision as the original. A shed request goes to the next node in
 * its hash order that sheds a smaller share and passes its own draw; when
 * none is left, it is refused (the router answers 503), as §5.10.1 allows a
 * client to do with what it sheds. When every node sheds alike the whole
 * cluster is past what it carries, and moving one node's excess to another
 * would only make that one refuse more of its own — and, under owner
 * routing, do the excess's DHT work remotely, the dearest way; while one
 * node sheds more than the others (it just took over a range, or a peer
 * died), they have room for part of its excess.
 *
 * <p>Only new requests are steered: ACK and CANCEL must reach the node
 * that holds their INVITE transaction (§17.2.3, §9.2), and requests inside
 * a dialog are finishing work a node already took on (RFC 7339 §5.10.1).
 *
 * <p>Written by the UDP thread as responses arrive, read by every router
 * thread: each node's state is one immutable value swapped atomically.
 */
public final class NodeLoad {

    /** The longest a node is held off or throttled by one instruction. */
    public static final Duration MAX_HOLD = Duration.ofSeconds(30);

    private static final long MAX_HOLD_NANOS = MAX_HOLD.toNanos();
    private static final long SHED_SALT = 0x6f63L;

    /** One node's state; times are nanoTime values. */
    private record State(long holdUntil, int percent, long percentUntil, BigDecimal sequence) {
        static final State CLEAR = new State(Long.MIN_VALUE, 0, Long.MIN_VALUE, null);

        boolean holding(long now) {
            return holdUntil != Long.MIN_VALUE && now - holdUntil < 0;
        }

        int shedding(long now) {
            return percent > 0 && now - percentUntil < 0 ? percent : 0;
        }
    }

    private final AtomicReferenceArray<State> states;
    /** No node holds off or sheds before this nanoTime... unless set later; a cheap test for the usual case. */
    private volatile long quietAfter = Long.MIN_VALUE;
    private volatile boolean everBusy;

    public NodeLoad(int nodes) {
        states = new AtomicReferenceArray<>(nodes);
        for (int i = 0; i < nodes; i++) {
            states.set(i, State.CLEAR);
        }
    }

    /** A node answered 503 with {@code Retry-After: retryAfterSeconds}; without one (or 0) nothing changes. */
    public void serviceUnavailable(int node, long retryAfterSeconds, long now) {
        if (retryAfterSeconds <= 0) {
            return;
        }
        long until = now + Math.min(MAX_HOLD_NANOS, Duration.ofSeconds(Math.min(retryAfterSeconds, 86_400)).toNanos());
        states.updateAndGet(node, s -> new State(later(s.holdUntil(), until), s.percent(), s.percentUntil(),
                s.sequence()));
        busyUntil(until);
    }

    /** A node's RFC 7339 instruction arrived; a stale one (lower oc-seq than the last) is ignored. */
    public void overloadControl(int node, OverloadControl oc, long now) {
        long until = now + Math.min(MAX_HOLD_NANOS, Duration.ofMillis(oc.validityMs()).toNanos());
        State next = states.updateAndGet(node, s -> {
            if (s.sequence() != null && oc.sequence() != null && oc.sequence().compareTo(s.sequence()) < 0) {
                return s;
            }
            if (s.sequence() != null && oc.sequence() != null && oc.sequence().compareTo(s.sequence()) == 0
                    && !oc.lifts()) {
                // The same instruction again, from another response: its validity counts from when it was first given.
                return s;
            }
            return oc.lifts() ? new State(s.holdUntil(), 0, Long.MIN_VALUE, oc.sequence())
                    : new State(s.holdUntil(), oc.percent(), until, oc.sequence());
        });
        if (next.shedding(now) > 0) {
            busyUntil(until);
        }
    }

    /** Whether the node is holding off after a 503 at {@code now}. */
    public boolean holding(int node, long now) {
        return states.get(node).holding(now);
    }

    /** The percentage of new requests the node sheds at {@code now}. */
    public int shedding(int node, long now) {
        return states.get(node).shedding(now);
    }

    /** Whether any node might hold off or shed at {@code now}: false lets routing skip every check. */
    public boolean quiet(long now) {
        return !everBusy || now - quietAfter >= 0;
    }

    /**
     * The node for a request whose nodes in preference order are {@code
     * ranked} (the first is what hashing alone would pick).
     *
     * @param ranked      live nodes, most preferred first; not empty
     * @param newRequest  whether the request may be steered (not ACK, CANCEL or in-dialog)
     * @param transaction a hash of the request's transaction, the same for its retransmissions
     * @return the node, or empty when every node sheds this request
     */
    public Optional<NodeSet.Node> choose(List<NodeSet.Node> ranked, boolean newRequest, long transaction, long now) {
        NodeSet.Node first = ranked.get(0);
        if (!newRequest || quiet(now)) {
            return Optional.of(first);
        }
        List<NodeSet.Node> open = new ArrayList<>(ranked.size());
        for (NodeSet.Node n : ranked) {
            if (!holding(n.index(), now)) {
                open.add(n);
            }
        }
        List<NodeSet.Node> candidates = open.isEmpty() ? ranked : open;
        NodeSet.Node preferred = candidates.get(0);
        int share = shedding(preferred.index(), now);
        if (share == 0 || draw(transaction, preferred) >= share) {
            return Optional.of(preferred);
        }
        // Only a node that sheds less has room for some of another's excess; at an equal share it refuses its own.
        for (NodeSet.Node n : candidates.subList(1, candidates.size())) {
            int percent = shedding(n.index(), now);
            if (percent < share && (percent == 0 || draw(transaction, n) >= percent)) {
                return Optional.of(n);
            }
        }
        return Optional.empty();
    }

    /** Whether every one of {@code nodes} is holding off at {@code now}. */
    public boolean allHolding(List<NodeSet.Node> nodes, long now) {
        for (NodeSet.Node n : nodes) {
            if (!holding(n.index(), now)) {
                return false;
            }
        }
        return true;
    }

    /** Whether every one of {@code nodes} holds off after a 503 or sheds a share of its new requests at {@code now}. */
    public boolean allRestrained(List<NodeSet.Node> nodes, long now) {
        for (NodeSet.Node n : nodes) {
            if (!holding(n.index(), now) && shedding(n.index(), now) == 0) {
                return false;
            }
        }
        return true;
    }

    /** 0..99, uniform over transactions, independent between nodes. */
    static int draw(long transaction, NodeSet.Node node) {
        return (int) Long.remainderUnsigned(Fnv.mix(transaction ^ node.seed() ^ SHED_SALT), 100);
    }

    private void busyUntil(long until) {
        long q = quietAfter;
        if (!everBusy || until - q > 0) {
            quietAfter = until;
        }
        everBusy = true;
    }

    private static long later(long a, long b) {
        return a == Long.MIN_VALUE || b - a > 0 ? b : a;
    }
}
