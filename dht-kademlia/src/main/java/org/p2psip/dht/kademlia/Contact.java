package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.util.Objects;
import java.util.Optional;

import org.p2psip.core.net.HostPort;

/**
 * A Kademlia contact triple (§2.2: IP address, UDP port, node id), plus the
 * SIP address of the front node beside it so placement can name it.
 */
public record Contact(BigInteger id, HostPort overlay, Optional<HostPort> sip) {

    public Contact {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(overlay, "overlay");
        Objects.requireNonNull(sip, "sip");
    }
}
