package org.p2psip.dht.chord;

import java.util.List;
import java.util.Optional;

/** What stabilize asks of a successor: its predecessor and its successor list. */
public record Neighbours(Optional<NodeRef> predecessor, List<NodeRef> successors) {

    public Neighbours {
        successors = List.copyOf(successors);
    }
}
