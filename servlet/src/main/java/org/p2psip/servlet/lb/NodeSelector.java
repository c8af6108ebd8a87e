package org.p2psip.servlet.lb;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

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
 * live node: under {@code round-robin} they are therefore hashed by Call-ID,
 * and under {@code aor} by the same Request-URI as the INVITE they belong
 * to (§9.1 and §17.1.1.3 copy it), so they meet the same node as long as it
 * lives.
 */
public final class NodeSelector {

    private final BalancingPolicy policy;
    private final NodeSet nodes;
    private final AtomicInteger turn = new AtomicInteger();

    public NodeSelector(BalancingPolicy policy, NodeSet nodes) {
        this.policy = policy;
        this.nodes = nodes;
    }

    public BalancingPolicy policy() {
        return policy;
    }

    /** The node for {@code m}, or empty when no node is up. */
    public Optional<NodeSet.Node> choose(SipMessage m) {
        List<NodeSet.Node> live = nodes.live();
        if (live.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(switch (policy) {
            case CALL_ID -> byHash(Fnv.hash(m.callId()), live);
            case AOR -> byHash(Fnv.hash(aorKey(m)), live);
            case ROUND_ROBIN -> {
                if (m.toTag() != null || "ACK".equals(m.method()) || "CANCEL".equals(m.method())) {
                    yield byHash(Fnv.hash(m.callId()), live);
                }
                yield live.get(Math.floorMod(turn.getAndIncrement(), live.size()));
            }
        });
    }

    /**
     * The DHT key the registrar files this request's AOR under: the To URI
     * of a REGISTER (RFC 3261 §10.3 step 5), else the Request-URI; the
     * Call-ID when that is no SIP URI (tel:, garbage), so the request still
     * has a stable home.
     */
    static String aorKey(SipMessage m) {
        String uri = "REGISTER".equals(m.method()) ? m.toUri() : m.requestUri();
        try {
            return AddressOfRecord.parse(uri).key();
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
