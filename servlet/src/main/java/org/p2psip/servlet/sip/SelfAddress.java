package org.p2psip.servlet.sip;

import java.util.Locale;

import javax.sip.address.SipURI;
import javax.sip.address.URI;

import org.p2psip.core.net.HostPort;

/**
 * The address this node puts in Via and Record-Route and recognises in
 * Route and Request-URI (RFC 3261 §16.4: "if the first value in the Route
 * header field indicates this proxy").
 *
 * @param host the host as written in URIs this node creates
 * @param port the SIP port, the same on UDP and TCP
 */
public record SelfAddress(String host, int port) {

    public static SelfAddress of(HostPort bound) {
        return new SelfAddress(bound.host(), bound.port());
    }

    /** Whether {@code uri} names this node: same host and port, no matter which transport. */
    public boolean isSelf(URI uri) {
        if (!(uri instanceof SipURI sip)) {
            return false;
        }
        int p = sip.getPort() > 0 ? sip.getPort() : (sip.isSecure() ? 5061 : 5060);
        return p == port && sameHost(sip.getHost());
    }

    /** Whether a Via sent-by names this node. */
    public boolean isSentBy(String viaHost, int viaPort) {
        int p = viaPort > 0 ? viaPort : 5060;
        return p == port && sameHost(viaHost);
    }

    private boolean sameHost(String other) {
        if (other == null) {
            return false;
        }
        String h = other.toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        return h.equals(host);
    }

    /** The host as it goes into a URI. */
    public String uriHost() {
        return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    }

    public HostPort hostPort() {
        return new HostPort(host, port);
    }

    @Override
    public String toString() {
        return uriHost() + ":" + port;
    }
}
