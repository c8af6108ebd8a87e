package org.p2psip.servlet.proxy;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

import javax.sip.address.SipURI;
import javax.sip.address.URI;

import org.p2psip.servlet.sip.SelfAddress;

/**
 * The addresses a node writes in Record-Route and takes as its own in
 * Route (RFC 3261 §16.6 step 4, §16.4).
 *
 * <p>Behind a balancer, the balancer's address is written, not the node's.
 * A dialog's later requests then come back through the balancer, which
 * hands them to any live node. Every node accepts them, because the
 * value's token is signed with the cluster's secret, so a call outlives
 * the node that set it up. Without a balancer these are the node's own
 * addresses.
 *
 * <p>The two sides of a call may reach the cluster over different
 * transports, for example a caller on TLS and a callee on UDP. The node
 * then writes two values, one facing each side (RFC 5658 §3.3,
 * double Record-Route), each with its {@code transport} parameter kept.
 *
 * <p>Behind a balancer the node also sends its requests to UAs through it
 * (as the first Route), when the balancer can reach the UA: over UDP at an
 * IP address. The UA then only ever exchanges messages with the balancer,
 * and its answers come back to the node by the balancer's Via.
 *
 * @param plain  the UDP and TCP address
 * @param secure the TLS address, if there is one
 * @param front  whether these are the balancer's addresses rather than the node's own
 */
public record RecordRoutes(SelfAddress plain, Optional<SelfAddress> secure, boolean front) {

    public RecordRoutes {
        Objects.requireNonNull(plain, "plain");
        Objects.requireNonNull(secure, "secure");
    }

    /**
     * The address a Record-Route facing a side that uses {@code transport}
     * names, with the transport parameter it carries (null for UDP).
     */
    Hop facing(String transport) {
        String t = transport == null ? "UDP" : transport.toUpperCase(Locale.ROOT);
        if ("TLS".equals(t) && secure.isPresent()) {
            return new Hop(secure.get(), "tls");
        }
        if ("TCP".equals(t) || "TLS".equals(t)) {
            return new Hop(plain, "tcp");
        }
        return new Hop(plain, null);
    }

    /** Whether {@code uri} is one of these addresses (a proxy's URI: no user part), whatever its parameters. */
    boolean names(URI uri) {
        if (uri instanceof SipURI sip && sip.getUser() != null) {
            return false;
        }
        return plain.isSelf(uri) || secure.map(s -> s.isSelf(uri)).orElse(false);
    }

    /** Whether a Via sent-by is one of these addresses: the request came through the front. */
    boolean isSentBy(String host, int port) {
        return plain.isSentBy(host, port) || secure.map(s -> s.isSentBy(host, port)).orElse(false);
    }

    /** One Record-Route value: where, and the transport parameter (null: none, which means UDP). */
    record Hop(SelfAddress address, String transport) {
    }
}
