package org.p2psip.core.dht;

import java.util.List;
import java.util.Objects;

/**
 * Where a key lives: the owner that applies its updates, then the replicas
 * in the order they would take over.
 */
public record Placement(Peer owner, List<Peer> replicas) {

    public Placement {
        Objects.requireNonNull(owner, "owner");
        replicas = List.copyOf(replicas);
    }
}
