package org.p2psip.loadtest.connections;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The loopback addresses connections are bound to, from {@code --sources}:
 * a comma-separated list of addresses and IPv4 ranges
 * ({@code 127.0.0.10-127.0.0.40}, {@code 127.0.0.10,127.0.0.11},
 * {@code 127.0.1.1-127.0.1.9,127.0.2.1}). Linux routes the whole of
 * 127.0.0.0/8 to the loopback interface, so any of them can be bound
 * without configuring anything.
 */
final class SourceAddresses {

    /** More would only make a pointless round-robin; 4,096 is far above the per-source caps worth testing. */
    static final int MAX_SOURCES = 4_096;

    private SourceAddresses() {
    }

    /** Parses the list; throws {@link IllegalArgumentException} with a one-line reason. */
    static List<InetAddress> parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("--sources is empty");
        }
        Set<InetAddress> out = new LinkedHashSet<>();
        for (String part : text.split(",")) {
            String item = part.trim();
            if (item.isEmpty()) {
                continue;
            }
            int dash = item.indexOf('-');
            if (dash < 0) {
                out.add(loopback(item));
            } else {
                long first = ipv4(item.substring(0, dash).trim());
                long last = ipv4(item.substring(dash + 1).trim());
                if (last < first) {
                    throw new IllegalArgumentException("source range '" + item + "' ends before it starts");
                }
                if (last - first + 1 > MAX_SOURCES) {
                    throw new IllegalArgumentException("source range '" + item + "' is larger than " + MAX_SOURCES);
                }
                for (long a = first; a <= last; a++) {
                    out.add(address(a));
                }
            }
            if (out.size() > MAX_SOURCES) {
                throw new IllegalArgumentException("more than " + MAX_SOURCES + " source addresses");
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("--sources is empty");
        }
        return List.copyOf(new ArrayList<>(out));
    }

    private static InetAddress loopback(String literal) {
        InetAddress a = literal(literal);
        if (!a.isLoopbackAddress()) {
            throw new IllegalArgumentException("source " + literal + " is not a loopback address");
        }
        return a;
    }

    private static long ipv4(String literal) {
        InetAddress a = loopback(literal);
        if (!(a instanceof Inet4Address)) {
            throw new IllegalArgumentException("source ranges are IPv4 only: " + literal);
        }
        byte[] b = a.getAddress();
        return ((b[0] & 0xffL) << 24) | ((b[1] & 0xffL) << 16) | ((b[2] & 0xffL) << 8) | (b[3] & 0xffL);
    }

    private static InetAddress address(long v) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8),
                    (byte) v});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An IP literal, never a name lookup. */
    static InetAddress literal(String text) {
        String s = text.startsWith("[") && text.endsWith("]") ? text.substring(1, text.length() - 1) : text;
        String[] octets = s.split("\\.", -1);
        if (octets.length == 4 && s.indexOf(':') < 0) {
            long v = 0;
            for (String o : octets) {
                if (o.isEmpty() || o.length() > 3 || !o.chars().allMatch(c -> c >= '0' && c <= '9')
                        || Integer.parseInt(o) > 255) {
                    throw new IllegalArgumentException("'" + text + "' is not an IP address");
                }
                v = (v << 8) | Integer.parseInt(o);
            }
            return address(v);
        }
        if (s.indexOf(':') >= 0 && s.chars().allMatch(c -> c == ':' || c == '.' || Character.digit(c, 16) >= 0)) {
            try {
                return InetAddress.getByName("[" + s + "]");
            } catch (UnknownHostException e) {
                // falls through
            }
        }
        throw new IllegalArgumentException("'" + text + "' is not an IP address");
    }
}
