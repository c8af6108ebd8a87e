package org.p2psip.dht.chord;

import java.util.List;

/**
 * Where a lookup ended: the key's owner, its successors (replica
 * candidates, in take-over order) and how many remote nodes were asked.
 */
public record LookupResult(NodeRef owner, List<NodeRef> successors, int hops) {

    public LookupResult {
        successors = List.copyOf(successors);
    }
}
