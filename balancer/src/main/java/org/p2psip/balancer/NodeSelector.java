package org.p2psip.balancer;

import org.p2psip.sip.wire.SipMessage;
import org.p2psip.sip.wire.TopVia;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import org.p2psip.core.dht.KeyPlacement;
import org.p2psip.core.location.AddressOfRecord;

/**
 * Picks the node for a request under a {@link BalancingPolicy}.
 *
 * <p>Hashing is rendezvous (highest random weight) hashing over the live
 * nodes: each node scores {@code mix(keyHash ^ nodeSeed)} and the highest
 * wins. When a node dies only the keys it won move, and they come back to
 * it when it returns — the property consistent hashing exists for — with
 * no ring to maintain; for the handful of nodes behind a balancer the
 * linear scan costs less than a ring lookup.
 *
 * <p>ACK and CANCEL must reach the node holding the INVITE server
 * transaction (RFC 3261 §17.2.3, §9.2), and in-dialog requests must reach a
 * live node. Under {@code round-robin} a request outside a dialog is
 * therefore hashed by its transaction (the top Via's branch and sent-by,
 * §17.2.3): new transactions spread evenly with no affinity to their call,
 * while a retransmission, the CANCEL and the ACK for a non-2xx answer carry
 * the same branch and meet the same node; in-dialog requests go by Call-ID.
 * A balancer that counted turns would send a retransmission to another
 * node, where an authenticated request that was already used counts as a
 * replay. Under {@code aor} they are hashed by the same Request-URI as the
 * INVITE they belong to (§9.1 and §17.1.1.3 copy it), so they meet the same
 * node as long as it lives.
 *
 * <p>Under {@code owner} the node that claims the request's AOR key
 * ({@link KeyOwners}) comes first and the rest follow in the Call-ID's
 * rendezvous order; with no claimant the Call-ID decides alone.
 *
 * <p>Whatever the policy, a request of a transaction the selector sent
 * within the last 32 s goes back to the node it went to while that node is
 * up ({@link TransactionAffinity}): a membership change or a new placement
 * view moves keys, and a retransmission, CANCEL or non-2xx ACK that followed
 * them would meet no transaction at the new node.
 *
 * <p>Nodes that shed load ({@link NodeLoad}: 503 with Retry-After, RFC
 * 7339 {@code oc}) are passed over for new requests in favour of the next
 * node in the same rendezvous order, so what one node sheds spreads over
 * the others the way its keys would if it died.
 *
 * <p>Issue 33: only nodes that are up and ready ({@link NodeSet#ready()})
 * are placed on; a warming node still gets the transactions it already
 * holds through the affinity table, and its claim does not count under
 * {@code owner}. With no ready node the request is refused as when none is
 * up (the router answers 503 with Retry-After, RFC 3261 §21.5.4). A node
 * in its slow start ({@link SlowStart}) is passed over for the part of the
 * requests that is not yet its share, decided by the policy's key (by the
 * AOR's key for a claimant under {@code owner}, so an AOR stays where it
 * went while the share grows); what it is passed over for goes where the
 * policy would send it without that node. Nodes keep no dialog state, so
 * in-dialog requests are placed the same way: any ready node routes them.
 */
public final class NodeSelector {

    private final BalancingPolicy policy;
    private final NodeSet nodes;
    private final KeyOwners owners;
    private final NodeLoad load;
    private final BalancerCounters counters;
    private final SlowStart slowStart;
    private final TransactionAffinity affinity = new TransactionAffinity();

    public NodeSelector(BalancingPolicy policy, NodeSet nodes) {
        this(policy, nodes, new KeyOwners(nodes.all().size()), new NodeLoad(nodes.all().size()),
                new BalancerCounters());
    }

    /** A selector without slow start. */
    public NodeSelector(BalancingPolicy policy, NodeSet nodes, KeyOwners owners, NodeLoad load,
                        BalancerCounters counters) {
        this(policy, nodes, owners, load, counters, SlowStart.off(nodes.all().size()));
    }

    public NodeSelector(BalancingPolicy policy, NodeSet nodes, KeyOwners owners, NodeLoad load,
                        BalancerCounters counters, SlowStart slowStart) {
        this.policy = policy;
        this.nodes = nodes;
        this.owners = owners;
        this.load = load;
        this.counters = counters;
        this.slowStart = slowStart;
    }

    public BalancingPolicy policy() {
        return policy;
    }

    public NodeLoad load() {
        return load;
    }

    /** The node for {@code m} now, or empty when no node is up and ready or every node sheds it. */
    public Optional<NodeSet.Node> choose(SipMessage m) {
        return choose(m, System.nanoTime());
    }

    /** The node for {@code m} at {@code now}, or empty when no node is up and ready or every node sheds it. */
    public Optional<NodeSet.Node> choose(SipMessage m, long now) {
        List<NodeSet.Node> live = nodes.live();
        if (live.isEmpty()) {
            return Optional.empty();
        }
        long transaction = Fnv.hash(transactionKey(m));
        // Live, not ready: a warming node finishes the transactions it holds.
        NodeSet.Node earlier = liveAt(affinity.nodeOf(transaction, now), live);
        if (earlier != null) {
            return Optional.of(earlier);
        }
        List<NodeSet.Node> ready = nodes.ready();
        if (ready.isEmpty()) {
            return Optional.empty();
        }
        Optional<NodeSet.Node> chosen = place(m, ready, transaction, now);
        if (!m.isAck()) {
            // A 2xx's ACK is a transaction of its own that is never retransmitted: not worth a slot.
            chosen.ifPresent(n -> affinity.remember(transaction, n.index(), now));
        }
        return chosen;
    }

    /**
     * Another node for a new request that the nodes in {@code refusedBy}
     * answered 503 ({@link FailoverRequests}): where {@link #choose} would
     * place it among the ready nodes but those, or empty when none is left
     * or every one left sheds it. The transaction is remembered at the new
     * node, so the client's retransmissions follow the request there.
     */
    public Optional<NodeSet.Node> failover(SipMessage m, List<Integer> refusedBy, long now) {
        List<NodeSet.Node> ready = new ArrayList<>(nodes.ready());
        ready.removeIf(n -> refusedBy.contains(n.index()));
        if (ready.isEmpty()) {
            return Optional.empty();
        }
        long transaction = Fnv.hash(transactionKey(m));
        Optional<NodeSet.Node> chosen = place(m, ready, transaction, now);
        chosen.ifPresent(n -> affinity.remember(transaction, n.index(), now));
        return chosen;
    }

    /** The node of {@code index} if it is among {@code live}, else null. */
    private static NodeSet.Node liveAt(int index, List<NodeSet.Node> live) {
        if (index >= 0) {
            for (NodeSet.Node n : live) {
                if (n.index() == index) {
                    return n;
                }
            }
        }
        return null;
    }

    /**
     * Where the policy, the placement view, the ramps and the nodes' load
     * send a transaction the table does not know, among {@code ready}.
     */
    private Optional<NodeSet.Node> place(SipMessage m, List<NodeSet.Node> ready, long transaction, long now) {
        long key = key(m);
        long aorPoint = 0;
        Optional<NodeSet.Node> owner = Optional.empty();
        if (policy == BalancingPolicy.OWNER) {
            aorPoint = KeyPlacement.point(aorKey(m, owners::keyOf));
            owner = owners.ownerOf(aorPoint, ready);
        }
        boolean ramping = !slowStart.quiet(now);
        if (load.quiet(now) && !ramping) {
            return Optional.of(owner.orElseGet(() -> byHash(key, ready)));
        }
        boolean newRequest = m.toTag() == null && !m.isAck() && !"CANCEL".equals(m.method());
        List<NodeSet.Node> ranked = ranked(key, ready);
        owner.ifPresent(o -> {
            ranked.remove(o);
            ranked.add(0, o);
        });
        List<NodeSet.Node> order = ramping ? slowStart.order(ranked, owner.isPresent() ? aorPoint : key, key, now)
                : ranked;
        Optional<NodeSet.Node> chosen = load.choose(order, newRequest, transaction, now);
        if (chosen.isPresent() && chosen.get() != order.get(0)) {
            counters.countDiverted();
        }
        return chosen;
    }

    /**
     * Whether no node would take a new request at {@code now} for its load:
     * every node up and ready is holding off after a 503, or none is ready.
     */
    boolean allHolding(long now) {
        List<NodeSet.Node> ready = nodes.ready();
        return ready.isEmpty() || load.allHolding(ready, now);
    }

    /**
     * Whether the cluster as a whole is overloaded at {@code now}: every node
     * up and ready holds off after a 503 or sheds a share of its new requests
     * (RFC 7339), or none is ready.
     */
    boolean allRestrained(long now) {
        List<NodeSet.Node> ready = nodes.ready();
        return ready.isEmpty() || load.allRestrained(ready, now);
    }

    private long key(SipMessage m) {
        return switch (policy) {
            case CALL_ID, OWNER -> Fnv.hash(m.callId());
            case AOR -> Fnv.hash(aorKey(m, AddressOfRecord::key));
            case ROUND_ROBIN -> Fnv.hash(m.toTag() != null ? m.callId() : transactionKey(m));
        };
    }

    /** Live nodes in rendezvous order for {@code key}: the first is {@link #byHash}'s choice. */
    static List<NodeSet.Node> ranked(long key, List<NodeSet.Node> live) {
        List<NodeSet.Node> order = new ArrayList<>(live);
        // Highest score first, compared unsigned as byHash does, ties to the earlier node as there.
        order.sort((a, b) -> {
            int c = Long.compareUnsigned(Fnv.mix(key ^ b.seed()), Fnv.mix(key ^ a.seed()));
            return c != 0 ? c : Integer.compare(a.index(), b.index());
        });
        return order;
    }

    /**
     * What identifies the server transaction a request belongs to (RFC 3261
     * §17.2.3): the top Via's branch and sent-by when the branch has the
     * magic cookie, else (an RFC 2543 client) the Call-ID and CSeq number.
     */
    static String transactionKey(SipMessage m) {
        TopVia via = m.topVia();
        String branch = via == null ? null : via.branch();
        if (branch != null && branch.startsWith("z9hG4bK")) {
            return branch + "|" + via.host() + ":" + via.port();
        }
        return m.callId() + "|" + m.cseqNumber();
    }

    /**
     * The DHT key the registrar files this request's AOR under, as
     * {@code keyOf} writes it: the To URI of a REGISTER (RFC 3261 §10.3
     * step 5), else the Request-URI; the Call-ID when that is no SIP URI
     * (tel:, garbage), so the request still has a stable home.
     */
    static String aorKey(SipMessage m, Function<AddressOfRecord, String> keyOf) {
        String uri = "REGISTER".equals(m.method()) ? m.toUri() : m.requestUri();
        try {
            return keyOf.apply(AddressOfRecord.parse(uri));
        } catch (IllegalArgumentException e) {
            return "call-id:" + m.callId();
        }
    }

    static NodeSet.Node byHash(long key, List<NodeSet.Node> live) {
        NodeSet.Node best = null;
        long bestScore = 0;
        for (NodeSet.Node n : live) {
            long score = Fnv.mix(key ^ n.seed());
            if (best == null || Long.compareUnsigned(score, bestScore) > 0) {
                best = n;
                bestScore = score;
            }
        }
        return best;
    }
}
