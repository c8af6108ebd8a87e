package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.util.Objects;
import java.util.Optional;

import org.p2psip.core.net.HostPort;

/**
 * A ring member as others know it: its identifier, the overlay address it
 * answers on, and the SIP address of its front node (for placement).
 * Equality is by identifier and address, so a node that restarts on the
 * same address with the same id is the same member.
 */
public record NodeRef(BigInteger id, HostPort overlay, Optional<HostPort> sip) {

    public NodeRef {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(overlay, "overlay");
        Objects.requireNonNull(sip, "sip");
    }

    public NodeRef(BigInteger id, HostPort overlay) {
        this(id, overlay, Optional.empty());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NodeRef n && n.id.equals(id) && n.overlay.equals(overlay);
    }

    @Override
    public int hashCode() {
        return id.hashCode() * 31 + overlay.hashCode();
    }

    @Override
    public String toString() {
        return id.toString(16) + "@" + overlay;
    }
}
