package org.p2psip.dht.chord;

import java.util.List;
import java.util.Objects;

/**
 * One step of an iterative lookup: either the answer ({@code done}: the key's
 * owner, followed by the successors that hold its replicas) or the next node
 * to ask, the closest predecessor of the key the asked node knows (with the
 * asked node's successor list).
 */
public record HopReply(boolean done, NodeRef node, List<NodeRef> successors) {

    public HopReply {
        Objects.requireNonNull(node, "node");
        successors = List.copyOf(successors);
    }

    public static HopReply owner(NodeRef owner, List<NodeRef> successors) {
        return new HopReply(true, owner, successors);
    }

    /** Forward to {@code closer}; the asked node's own successors let the asker step round a dead hop. */
    public static HopReply next(NodeRef closer, List<NodeRef> askedNodesSuccessors) {
        return new HopReply(false, closer, askedNodesSuccessors);
    }
}
