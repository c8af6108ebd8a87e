package org.p2psip.core.location;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;

/**
 * A SIP or SIPS URI (RFC 3261 §19.1.1), parsed just far enough to compare two
 * URIs by the rules of §19.1.4 and to derive an address-of-record.
 *
 * <p>Components are stored unescaped: "characters other than those in the
 * reserved set are equivalent to their encoding", so {@code sip:%61lice@x}
 * and {@code sip:alice@x} hold the same user. Parameter and header names are
 * lower-cased (they compare case-insensitively); parameter values without
 * {@code =} are stored as the empty string.
 *
 * @param scheme   {@code sip} or {@code sips}, lower-case
 * @param user     the user part including any password, unescaped; empty when absent
 * @param host     the host, lower-case, IPv6 literals without brackets
 * @param port     the explicit port, if any
 * @param params   URI parameters in the order written
 * @param headers  URI headers ({@code ?name=value}) in the order written
 */
public record SipUri(String scheme, String user, String host, OptionalInt port,
                     Map<String, String> params, Map<String, String> headers) {

    /**
     * Parameters that make two URIs different when only one of them carries
     * the parameter (RFC 3261 §19.1.4).
     */
    private static final java.util.Set<String> SIGNIFICANT_WHEN_ABSENT =
            java.util.Set.of("user", "ttl", "method", "maddr", "transport");

    public SipUri {
        if (!"sip".equals(scheme) && !"sips".equals(scheme)) {
            throw new IllegalArgumentException("URI scheme must be sip or sips, not '" + scheme + "'");
        }
        if (user == null) {
            user = "";
        }
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("URI has no host");
        }
        if (port.isPresent() && (port.getAsInt() < 0 || port.getAsInt() > 65535)) {
            throw new IllegalArgumentException("URI port " + port.getAsInt() + " is outside 0..65535");
        }
        params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
        headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    /**
     * Parses a URI in its bare form (no angle brackets, no display name).
     *
     * @throws IllegalArgumentException with a message fit for a 400 reason phrase
     */
    public static SipUri parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("URI is missing");
        }
        String s = text.trim();
        int colon = s.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("URI has no scheme");
        }
        String scheme = s.substring(0, colon).toLowerCase(Locale.ROOT);
        if (!"sip".equals(scheme) && !"sips".equals(scheme)) {
            throw new IllegalArgumentException("Unsupported URI scheme '" + scheme + "'");
        }
        String rest = s.substring(colon + 1);
        for (int i = 0; i < rest.length(); i++) {
            char c = rest.charAt(i);
            if (c <= ' ' || c == '<' || c == '>' || c == '"' || c == 0x7f) {
                throw new IllegalArgumentException("URI contains an illegal character");
            }
        }
        // userinfo cannot hold an unescaped '@', so the first one ends it (RFC 3261 §25.1).
        String user = "";
        int at = rest.indexOf('@');
        if (at >= 0) {
            user = unescape(rest.substring(0, at));
            if (user.isEmpty()) {
                throw new IllegalArgumentException("URI has an empty user part");
            }
            rest = rest.substring(at + 1);
        }
        String headerText = null;
        int question = rest.indexOf('?');
        if (question >= 0) {
            headerText = rest.substring(question + 1);
            rest = rest.substring(0, question);
        }
        String paramText = null;
        int semi = rest.indexOf(';');
        if (semi >= 0) {
            paramText = rest.substring(semi + 1);
            rest = rest.substring(0, semi);
        }
        String host;
        OptionalInt port = OptionalInt.empty();
        if (rest.startsWith("[")) {
            int close = rest.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("URI has an unterminated IPv6 reference");
            }
            host = rest.substring(1, close);
            String after = rest.substring(close + 1);
            if (!after.isEmpty()) {
                if (!after.startsWith(":")) {
                    throw new IllegalArgumentException("URI has junk after its IPv6 host");
                }
                port = OptionalInt.of(parsePort(after.substring(1)));
            }
        } else {
            int pc = rest.indexOf(':');
            if (pc >= 0) {
                host = rest.substring(0, pc);
                port = OptionalInt.of(parsePort(rest.substring(pc + 1)));
            } else {
                host = rest;
            }
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("URI has no host");
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '.' || c == '-' || c == ':' || c == '_')) {
                throw new IllegalArgumentException("URI host contains '" + c + "'");
            }
        }
        Map<String, String> params = new LinkedHashMap<>();
        if (paramText != null) {
            for (String p : paramText.split(";", -1)) {
                if (p.isEmpty()) {
                    throw new IllegalArgumentException("URI has an empty parameter");
                }
                int eq = p.indexOf('=');
                String name = unescape(eq < 0 ? p : p.substring(0, eq)).toLowerCase(Locale.ROOT);
                String value = eq < 0 ? "" : unescape(p.substring(eq + 1));
                if (name.isEmpty()) {
                    throw new IllegalArgumentException("URI has a parameter without a name");
                }
                if (params.putIfAbsent(name, value) != null) {
                    throw new IllegalArgumentException("URI repeats parameter '" + name + "'");
                }
            }
        }
        Map<String, String> headers = new LinkedHashMap<>();
        if (headerText != null && !headerText.isEmpty()) {
            for (String h : headerText.split("&")) {
                int eq = h.indexOf('=');
                String name = unescape(eq < 0 ? h : h.substring(0, eq)).toLowerCase(Locale.ROOT);
                String value = eq < 0 ? "" : unescape(h.substring(eq + 1));
                headers.put(name, value);
            }
        }
        return new SipUri(scheme, user, host.toLowerCase(Locale.ROOT), port, params, headers);
    }

    /**
     * URI equivalence by RFC 3261 §19.1.4: same scheme; user part
     * case-sensitive; host case-insensitive; port, and the user, ttl, method,
     * maddr and transport parameters, present in both or in neither; every
     * parameter present in both equal (case-insensitively); URI headers never
     * ignored.
     */
    public boolean equivalentTo(SipUri other) {
        if (!scheme.equals(other.scheme) || !user.equals(other.user)
                || !host.equals(other.host) || !port.equals(other.port)) {
            return false;
        }
        for (Map.Entry<String, String> e : params.entrySet()) {
            String theirs = other.params.get(e.getKey());
            if (theirs == null) {
                if (SIGNIFICANT_WHEN_ABSENT.contains(e.getKey())) {
                    return false;
                }
            } else if (!theirs.equalsIgnoreCase(e.getValue())) {
                return false;
            }
        }
        for (String name : other.params.keySet()) {
            if (!params.containsKey(name) && SIGNIFICANT_WHEN_ABSENT.contains(name)) {
                return false;
            }
        }
        return headers.equals(other.headers);
    }

    /**
     * The canonical address-of-record of this URI (RFC 3261 §10.3 step 5):
     * parameters and headers dropped, escapes resolved, host lower-cased.
     */
    public AddressOfRecord toAddressOfRecord() {
        return new AddressOfRecord(user, host, port);
    }

    /** The URI written out again, escaping what must be escaped. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(scheme).append(':');
        if (!user.isEmpty()) {
            b.append(escape(user, USER_SAFE)).append('@');
        }
        b.append(host.indexOf(':') >= 0 ? "[" + host + "]" : host);
        port.ifPresent(p -> b.append(':').append(p));
        params.forEach((k, v) -> {
            b.append(';').append(escape(k, PARAM_SAFE));
            if (!v.isEmpty()) {
                b.append('=').append(escape(v, PARAM_SAFE));
            }
        });
        char sep = '?';
        for (Map.Entry<String, String> h : headers.entrySet()) {
            b.append(sep).append(escape(h.getKey(), HEADER_SAFE)).append('=').append(escape(h.getValue(), HEADER_SAFE));
            sep = '&';
        }
        return b.toString();
    }

    private static final String UNRESERVED_MARKS = "-_.!~*'()";
    private static final String USER_SAFE = UNRESERVED_MARKS + "&=+$,;?/:";
    private static final String PARAM_SAFE = UNRESERVED_MARKS + "[]/:&+$";
    private static final String HEADER_SAFE = UNRESERVED_MARKS + "[]/?:+$";

    private static String escape(String s, String safe) {
        StringBuilder b = new StringBuilder(s.length());
        for (byte by : s.getBytes(StandardCharsets.UTF_8)) {
            int c = by & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || (c < 0x80 && safe.indexOf(c) >= 0)) {
                b.append((char) c);
            } else {
                b.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return b.toString();
    }

    /** Resolves {@code %HH} escapes once; a malformed escape is an error. */
    static String unescape(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length()) {
                    throw new IllegalArgumentException("URI has a truncated escape");
                }
                int hi = Character.digit(s.charAt(i + 1), 16);
                int lo = Character.digit(s.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    throw new IllegalArgumentException("URI has a malformed escape");
                }
                out.write(hi << 4 | lo);
                i += 3;
            } else {
                int cp = s.codePointAt(i);
                byte[] bytes = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
                out.write(bytes, 0, bytes.length);
                i += Character.charCount(cp);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static int parsePort(String text) {
        if (text.isEmpty() || text.length() > 5) {
            throw new IllegalArgumentException("URI has a bad port '" + text + "'");
        }
        for (int i = 0; i < text.length(); i++) {
            if (!Character.isDigit(text.charAt(i))) {
                throw new IllegalArgumentException("URI has a bad port '" + text + "'");
            }
        }
        int port = Integer.parseInt(text);
        if (port > 65535) {
            throw new IllegalArgumentException("URI port " + port + " is outside 0..65535");
        }
        return port;
    }
}
