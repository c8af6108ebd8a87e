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
        if (host == null) {
            throw new IllegalArgumentException("host must not be empty");
        }
        host = stripBrackets(host).toLowerCase(Locale.ROOT);
        if (host.isEmpty()) {
            throw new IllegalArgumentException("host must not be empty");
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (c <= ' ' || c == '[' || c == ']' || c == '/' || c == '@' || c == 0x7f) {
                throw new IllegalArgumentException("host '" + host + "' contains an illegal character");
            }
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is outside 0..65535");
        }
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
        if (portText.isEmpty() || portText.length() > 5 || !portText.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("'" + text + "' has no numeric port");
        }
        int port = Integer.parseInt(portText);
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("'" + text + "' has port outside 1..65535");
        }
        return new HostPort(host, port);
    }

    /** Parses a comma-separated list of {@code HOST:PORT}; empty text gives an empty list. */
    public static List<HostPort> parseList(String text) {
        if (text == null || text.isBlank()) {
            return List.of();
        }
        List<HostPort> out = new ArrayList<>();
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
