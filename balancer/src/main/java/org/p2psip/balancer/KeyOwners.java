package org.p2psip.balancer;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.p2psip.core.dht.KeyRangeSet;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.ServedDomains;

/**
 * The balancer's view of who owns which keys: the key ranges each node
 * last told it in the answer to its health probe ({@code P2psip-Owns}),
 * for the {@link BalancingPolicy#OWNER owner} policy.
 *
 * <p>Each node speaks only for itself, so the view needs no DHT library
 * and no agreement: a node that stops answering is no longer live and its
 * claim no longer counts; ranges it owned go unclaimed until their new
 * owner's next answer says so, and the requests for them meanwhile are
 * spread by Call-ID. Two claims can overlap for a moment while ownership
 * moves, and the one that changed last wins: it is the node that has just
 * taken the range over (a joiner that caught up, the successor of a node
 * that died), while the other still repeats what it said before the move
 * or is a dead node's last word, which stands until the probes give up on
 * it three intervals later; sending its keys there meanwhile lost each
 * request until the phone's retransmission reached a live node, and the
 * retransmissions of three seconds of them came all at once.
 *
 * <p>With the ranges the nodes tell the domains they serve, so that an
 * AOR at an alias (the balancer's own address, say) is looked up under the
 * key the registrar files it under.
 *
 * <p>Written on the UDP event loop, read by every pipeline: each node's
 * claim is one immutable value in an atomic array.
 */
public final class KeyOwners {

    /** What a node claims, and the count of claim changes in the cluster when it last changed. */
    private record Claim(KeyRangeSet ranges, long changed) {
    }

    private final AtomicReferenceArray<Claim> claims;
    /** Claim changes so far; written on the UDP event loop only. */
    private long changes;
    private volatile ServedDomains domains;

    public KeyOwners(int nodes) {
        this.claims = new AtomicReferenceArray<>(nodes);
    }

    /** Node {@code index} now owns {@code ranges}; empty when it said nothing about them. */
    public void claim(int index, Optional<KeyRangeSet> ranges) {
        Claim before = claims.get(index);
        if (ranges.isEmpty()) {
            claims.set(index, null);
        } else if (before == null || !before.ranges().equals(ranges.get())) {
            claims.set(index, new Claim(ranges.get(), ++changes));
        }
    }

    /** The cluster serves {@code domains}: every node tells the same ones, so the last word stands. */
    public void serve(ServedDomains domains) {
        this.domains = domains;
    }

    /**
     * The key the registrar files {@code aor} under: in its served domain
     * without a port when the cluster serves it, else as it is.
     */
    public String keyOf(AddressOfRecord aor) {
        ServedDomains d = domains;
        return (d == null ? aor : d.canonical(aor).orElse(aor)).key();
    }

    /** What node {@code index} last claimed, if anything. */
    public Optional<KeyRangeSet> claimOf(int index) {
        return Optional.ofNullable(claims.get(index)).map(Claim::ranges);
    }

    /** Of {@code live}, the one that claims {@code point} whose claim changed last; empty when none does. */
    public Optional<NodeSet.Node> ownerOf(long point, List<NodeSet.Node> live) {
        NodeSet.Node owner = null;
        long newest = Long.MIN_VALUE;
        for (NodeSet.Node n : live) {
            Claim c = claims.get(n.index());
            if (c != null && c.changed() > newest && c.ranges().contains(point)) {
                owner = n;
                newest = c.changed();
            }
        }
        return Optional.ofNullable(owner);
    }
}
