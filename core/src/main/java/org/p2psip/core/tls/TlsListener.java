package org.p2psip.core.tls;

import java.util.Objects;

import org.p2psip.core.net.HostPort;

/**
 * A SIP-over-TLS listener of the balancer or a node (RFC 3261 §26.2): where
 * it listens and what it presents. Port 0 picks a free port.
 *
 * @param address  where clients connect with TLS (5061 is the registered port for sips)
 * @param material the certificate chain and key
 */
public record TlsListener(HostPort address, TlsMaterial material) {

    public TlsListener {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(material, "material");
    }
}
