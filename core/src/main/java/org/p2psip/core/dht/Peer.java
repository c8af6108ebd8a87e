package org.p2psip.core.dht;

import java.util.Objects;
import java.util.Optional;

import org.p2psip.core.net.HostPort;

/**
 * A member of the overlay as placement reports it: its overlay identity and,
 * where known, the SIP address of the front node it runs beside, so a load
 * balancer can send a request straight to a key's owner.
 */
public record Peer(String id, Optional<HostPort> sip) {

    public Peer {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(sip, "sip");
        if (id.isBlank()) {
            throw new IllegalArgumentException("peer id must not be empty");
        }
    }
}
