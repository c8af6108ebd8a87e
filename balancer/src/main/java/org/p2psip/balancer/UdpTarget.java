package org.p2psip.balancer;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Optional;

/**
 * Where a {@code sip:} URI naming an IP address is reached over UDP (RFC
 * 3263 §4.2 without DNS: a numeric host, its port or 5060). Anything the
 * balancer could only reach by looking up a name, over another transport,
 * or as {@code sips:} is empty; nodes send such requests themselves.
 */
final class UdpTarget {

    private UdpTarget() {
    }

    static Optional<InetSocketAddress> of(String uri) {
        if (uri == null || !uri.regionMatches(true, 0, "sip:", 0, 4)) {
            return Optional.empty();
        }
        String rest = uri.substring(4);
        int end = indexOfAny(rest, ";?>");
        String params = end < 0 ? "" : rest.substring(end);
        String hostPart = end < 0 ? rest : rest.substring(0, end);
        int at = hostPart.lastIndexOf('@');
        if (at >= 0) {
            hostPart = hostPart.substring(at + 1);
        }
        if (!udp(params)) {
            return Optional.empty();
        }
        String host;
        int port = 5060;
        if (hostPart.startsWith("[")) {
            int close = hostPart.indexOf(']');
            if (close < 0) {
                return Optional.empty();
            }
            host = hostPart.substring(1, close);
            String tail = hostPart.substring(close + 1);
            if (tail.startsWith(":")) {
                port = port(tail.substring(1));
            } else if (!tail.isEmpty()) {
                return Optional.empty();
            }
        } else {
            int colon = hostPart.indexOf(':');
            host = colon < 0 ? hostPart : hostPart.substring(0, colon);
            if (colon >= 0) {
                port = port(hostPart.substring(colon + 1));
            }
            if (!host.chars().allMatch(c -> (c >= '0' && c <= '9') || c == '.') || host.isEmpty()) {
                return Optional.empty();
            }
        }
        if (port < 1) {
            return Optional.empty();
        }
        try {
            return Optional.of(new InetSocketAddress(InetAddress.getByName(host), port));
        } catch (UnknownHostException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static boolean udp(String params) {
        for (String p : params.split(";")) {
            int eq = p.indexOf('=');
            if (eq > 0 && p.substring(0, eq).trim().equalsIgnoreCase("transport")) {
                return p.substring(eq + 1).trim().toLowerCase(Locale.ROOT).startsWith("udp");
            }
        }
        return true;
    }

    private static int port(String text) {
        if (text.isEmpty() || text.length() > 5 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        int p = Integer.parseInt(text);
        return p <= 65535 ? p : -1;
    }

    private static int indexOfAny(String s, String chars) {
        for (int i = 0; i < s.length(); i++) {
            if (chars.indexOf(s.charAt(i)) >= 0) {
                return i;
            }
        }
        return -1;
    }
}
