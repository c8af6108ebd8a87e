package org.p2psip.loadtest.bench;

import java.net.InetSocketAddress;

/**
 * What the flows of one lane need to write their requests.
 *
 * @param runTag     unique per run; part of every Call-ID, tag and branch so that runs never collide
 * @param domain     host[:port] of every address-of-record (the registrar's domain)
 * @param transport  "UDP", "TCP" or "TLS", as written in Via
 * @param sentBy     host:port this lane's socket is reachable at (Via sent-by, Contact)
 * @param userPrefix user part before the index of registering AORs and callers
 * @param calleePrefix user part before the index of the UAS's AORs
 * @param callees    how many AORs the UAS registered (call and message pick one of them per request)
 * @param expires    Expires of a REGISTER, in seconds
 * @param lane       this lane's number, part of every branch
 * @param digest     the lane's digest state, or null when the generator does not authenticate
 * @param users      with {@code digest}: how many bench users flows cycle through
 */
public record FlowContext(String runTag, String domain, String transport, String sentBy, String userPrefix,
                          String calleePrefix, int callees, int expires, int lane, DigestSession digest, int users) {

    /**
     * The user flow {@code index} acts as: a new AOR per flow without
     * authentication, else one of the provisioned bench users.
     */
    public String user(long index) {
        return digest == null ? userPrefix + index : BenchAuth.USER_PREFIX + Math.floorMod(index, (long) users);
    }

    /** The Request-URI of a REGISTER, which is also its digest-uri. */
    String registrarUri() {
        return "sip:" + domain;
    }

    /** The {@code ;transport=} URI parameter for this transport, if one is needed (UDP is the default). */
    public String uriTransport() {
        return switch (transport) {
            case "TCP" -> ";transport=tcp";
            case "TLS" -> ";transport=tls";
            default -> "";
        };
    }

    /** Where a URI's host and port lead: the next hop for a route or a remote target (RFC 3263 without DNS). */
    public static InetSocketAddress hop(String sipUri) {
        String u = sipUri;
        int colon = u.indexOf(':');
        u = u.substring(colon + 1);
        int at = u.indexOf('@');
        if (at >= 0) {
            u = u.substring(at + 1);
        }
        int end = u.length();
        for (int i = 0; i < u.length(); i++) {
            char c = u.charAt(i);
            if (c == ';' || c == '?' || c == '>') {
                end = i;
                break;
            }
        }
        String hostPort = u.substring(0, end);
        String host;
        int port = sipUri.regionMatches(true, 0, "sips:", 0, 5) ? 5061 : 5060;
        if (hostPort.startsWith("[")) {
            int close = hostPort.indexOf(']');
            host = hostPort.substring(1, close);
            if (close + 1 < hostPort.length() && hostPort.charAt(close + 1) == ':') {
                port = Integer.parseInt(hostPort.substring(close + 2));
            }
        } else {
            int c = hostPort.lastIndexOf(':');
            if (c >= 0) {
                host = hostPort.substring(0, c);
                port = Integer.parseInt(hostPort.substring(c + 1));
            } else {
                host = hostPort;
            }
        }
        return new InetSocketAddress(host, port);
    }
}
