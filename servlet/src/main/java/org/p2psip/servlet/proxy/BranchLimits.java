package org.p2psip.servlet.proxy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.p2psip.core.location.Binding;
import org.p2psip.core.location.SipUri;

/**
 * How far one request may fan out (DESIGN.md: "Nothing unauthenticated is
 * amplified"), as a pure function of the bindings in forwarding order.
 *
 * <ul>
 *   <li>At most {@code maxBranches} targets in all, as Kamailio's
 *       {@code max_branches}.</li>
 *   <li>At most {@code maxPerHost} targets whose next hop (the first Path
 *       value, else the contact) is the same host, so an AOR with many
 *       contacts at one address cannot aim a burst of INVITEs, each
 *       retransmitted by Timer A, at it.</li>
 *   <li>A request that already passed through a node of this cluster is
 *       forwarded to one target only. Two AORs whose contacts point at
 *       each other otherwise fork a spiral (RFC 3261 §16.3 item 4 lets
 *       spirals through) into a tree that doubles per hop until
 *       Max-Forwards runs out; with one branch per later pass the request
 *       walks one path, and the loop check stops it on its second visit to
 *       the same node with the same Request-URI.</li>
 * </ul>
 */
final class BranchLimits {

    private BranchLimits() {
    }

    /** The bindings to fork to, in the order given. */
    static List<Binding> select(List<Binding> ordered, int maxBranches, int maxPerHost, boolean passedThroughCluster) {
        int limit = passedThroughCluster ? 1 : maxBranches;
        List<Binding> kept = new ArrayList<>();
        Map<String, Integer> perHost = new HashMap<>();
        for (Binding b : ordered) {
            if (kept.size() >= limit) {
                break;
            }
            String host = nextHopHost(b);
            int n = perHost.merge(host, 1, Integer::sum);
            if (n <= maxPerHost) {
                kept.add(b);
            }
        }
        return kept;
    }

    /** The host a binding's request is sent to; an unparsable value counts as a host of its own. */
    static String nextHopHost(Binding b) {
        String hop = b.path().isEmpty() ? b.contact() : b.path().get(0);
        String uri = hop.trim();
        int lt = uri.indexOf('<');
        int gt = uri.lastIndexOf('>');
        if (lt >= 0 && gt > lt) {
            uri = uri.substring(lt + 1, gt);
        }
        try {
            return SipUri.parse(uri).host();
        } catch (IllegalArgumentException e) {
            return "unparsable:" + hop;
        }
    }
}
