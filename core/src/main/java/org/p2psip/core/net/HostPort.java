package org.p2psip.core.net;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A host and port as written on a command line or in a SIP header
 * ({@code 127.0.0.1:5060}, {@code [::1]:5060}, {@code example.com:5060}).
 * The host is kept lower-case; IPv6 literals are kept without brackets.
 */
public record HostPort(String host, int port) {

    public HostPort {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("host must not be empty");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is outside 0..65535");
        }
        host = stripBrackets(host).toLowerCase(Locale.ROOT);
    }

    /** Parses {@code host:port} or {@code [v6]:port}; the port is mandatory. */
    public static HostPort parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("address must not be empty");
        }
        String s = text.trim();
        int colon;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0 || close + 1 >= s.length() || s.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("'" + text + "' is not HOST:PORT");
            }
            colon = close + 1;
        } else {
            colon = s.lastIndexOf(':');
            if (colon < 0 || s.indexOf(':') != colon) {
                throw new IllegalArgumentException("'" + text + "' is not HOST:PORT");
            }
        }
        String host = s.substring(0, colon);
        String portText = s.substring(colon + 1);
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' has no numeric port");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("'" + text + "' has port outside 1..65535");
        }
        return new HostPort(host, port);
    }

    /** Parses a comma-separated list of {@code HOST:PORT}; empty text gives an empty list. */
    public static List<HostPort> parseList(String text) {
        List<HostPort> out = new ArrayList<>();
        if (text == null || text.isBlank()) {
            return out;
        }
        for (String part : text.split(",")) {
            if (!part.isBlank()) {
                out.add(parse(part));
            }
        }
        return List.copyOf(out);
    }

    /** The host as it goes into a URI: IPv6 literals in brackets. */
    public String uriHost() {
        return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    }

    @Override
    public String toString() {
        return uriHost() + ":" + port;
    }

    private static String stripBrackets(String h) {
        String t = h.trim();
        if (t.startsWith("[") && t.endsWith("]")) {
            return t.substring(1, t.length() - 1);
        }
        return t;
    }
}
