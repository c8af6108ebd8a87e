package org.p2psip.balancer;

import org.p2psip.sip.wire.SipMessage;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * New non-INVITE requests on their way to a node, kept until that node
 * answers them, so that a node's 503 can send the request on to another
 * node instead of failing it. A 503 means the node refused the request
 * before acting on it (RFC 3261 §21.5.4), and a client that meets one tries
 * the next server (RFC 3263 §4.3); the balancer is that client towards its
 * nodes, as a dispatcher's failure route is. Without it a node's 503 reaches
 * the client as 500 (§16.7 item 6) while its peers have room.
 *
 * <p>Only requests outside a dialog that are not INVITE, ACK or CANCEL are
 * kept: their final answer needs no ACK, so dropping a 503 leaves nothing
 * open at the node that sent it. Entries are keyed by the branch of the
 * balancer's own Via, which the node's response carries back, and leave at
 * the first final response. The table is bounded: at {@value #MAX_PENDING}
 * entries a request is sent without one (it fails as before), and entries
 * older than Timer F (64·T1, 32 s) are swept when the table is full — a
 * node that never answered has been written off by then. A full table is
 * swept at most once every {@value #SWEEP_INTERVAL_NANOS} ns: a table full
 * of young entries (a node that drops a flood unanswered, its own budget
 * spent) would otherwise be scanned whole for every request, which cost the
 * balancer most of its time under a 10,000/s REGISTER flood.
 */
final class FailoverRequests {

    /** At most this many requests are kept at once. */
    static final int MAX_PENDING = 8_192;
    /** Timer F, 64·T1: the client has given up on a request this old. */
    static final long LIFETIME_NANOS = 32_000_000_000L;
    /** Methods whose 503 is never failed over: INVITE's final answers need an ACK; ACK and CANCEL have no 503. */
    /** How often a full table may be swept. */
    static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;
    private static final Set<String> NOT_FAILED_OVER = Set.of("INVITE", "ACK", "CANCEL");

    /** A request the balancer sent to a node, the nodes that refused it so far, and when it was first sent. */
    record Pending(SipMessage request, List<Integer> refusedBy, long sentAtNanos) {

        Pending {
            Objects.requireNonNull(request, "request");
            refusedBy = List.copyOf(refusedBy);
        }

        Pending alsoRefusedBy(int index) {
            if (refusedBy.contains(index)) {
                return this;
            }
            List<Integer> more = new ArrayList<>(refusedBy);
            more.add(index);
            return new Pending(request, more, sentAtNanos);
        }
    }

    private final ConcurrentHashMap<String, Pending> byBranch = new ConcurrentHashMap<>();
    private final AtomicLong sweptAt = new AtomicLong();
    private final AtomicBoolean sweptOnce = new AtomicBoolean();
    private final AtomicLong sweeps = new AtomicLong();

    /** Whether a 503 to {@code m} may send it on to another node: a new request, outside a dialog, not an INVITE. */
    static boolean eligible(SipMessage m) {
        return m.request() && m.toTag() == null && !NOT_FAILED_OVER.contains(m.method());
    }

    /**
     * {@code m} left for a node under the balancer's branch {@code branch}
     * at {@code now}. A retransmission keeps the entry its original made.
     */
    void sent(String branch, SipMessage m, long now) {
        if (byBranch.size() >= MAX_PENDING) {
            if (mustSweep(now)) {
                sweeps.incrementAndGet();
                byBranch.values().removeIf(p -> now - p.sentAtNanos() > LIFETIME_NANOS);
            }
            if (byBranch.size() >= MAX_PENDING) {
                return;
            }
        }
        byBranch.putIfAbsent(branch, new Pending(m, List.of(), now));
    }

    /** True for one caller at a time, at most once every {@link #SWEEP_INTERVAL_NANOS}. */
    private boolean mustSweep(long now) {
        if (!sweptOnce.get()) {
            if (sweptOnce.compareAndSet(false, true)) {
                sweptAt.set(now);
                return true;
            }
            return false;
        }
        long last = sweptAt.get();
        return now - last >= SWEEP_INTERVAL_NANOS && sweptAt.compareAndSet(last, now);
    }

    /** How many times the table has been swept. */
    long sweeps() {
        return sweeps.get();
    }

    /** The final response to the request sent under {@code branch} came: the entry leaves, and is returned. */
    Optional<Pending> answered(String branch) {
        return Optional.ofNullable(byBranch.remove(branch));
    }

    /** The request is on its way again, to another node, after {@code refused} answered 503. */
    void resent(String branch, Pending pending, int refused) {
        byBranch.put(branch, pending.alsoRefusedBy(refused));
    }
}
