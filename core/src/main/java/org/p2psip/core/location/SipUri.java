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
 * <p>The user part, parameters and headers are stored in a canonical escaped
 * form, so that two components are equivalent exactly when their stored
 * strings are equal. §19.1.4 says "characters other than those in the
 * reserved set are equivalent to their encoding": an escaped unreserved
 * character ({@code %61}) is stored as the character itself, so
 * {@code sip:%61lice@x} and {@code sip:alice@x} hold the same user; every
 * other escape ({@code %3B}, {@code %40}, {@code %00}, {@code %25}, non-ASCII
 * octets) is kept as {@code %HH} with upper-case hex, because an escaped
 * reserved character is not the same as the character written raw
 * ({@code sip:a%3Bb@x} and {@code sip:a;b@x} differ). Raw non-ASCII
 * characters, which the grammar does not allow but some clients send, are
 * stored as the escapes of their UTF-8 octets. Parameter and header names are
 * lower-cased (they compare case-insensitively); parameter values without
 * {@code =} are stored as the empty string.
 *
 * @param scheme   {@code sip} or {@code sips}, lower-case
 * @param user     the user part including any password, canonically escaped; empty when absent
 * @param host     the host, lower-case, IPv6 literals without brackets
 * @param port     the explicit port, if any
 * @param params   URI parameters in the order written
 * @param headers  URI headers ({@code ?name=value}) in the order written
 *
 * <p>The constructor takes components already in that canonical form; a
 * {@code %} in them is read as the start of an escape.
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
        // Only linear white space around the URI is ignored; String.trim() would also
        // swallow control characters, which make a URI invalid.
        int from = 0;
        int to = text.length();
        while (from < to && (text.charAt(from) == ' ' || text.charAt(from) == '\t')) {
            from++;
        }
        while (to > from && (text.charAt(to - 1) == ' ' || text.charAt(to - 1) == '\t')) {
            to--;
        }
        String s = text.substring(from, to);
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
            user = canonical(rest.substring(0, at));
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
            if (!isIpv6Literal(host)) {
                throw new IllegalArgumentException("URI has a malformed IPv6 reference '[" + host + "]'");
            }
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
        if (host.indexOf(':') < 0) {
            for (int i = 0; i < host.length(); i++) {
                char c = host.charAt(i);
                if (!(isAsciiAlphanumeric(c) || c == '.' || c == '-' || c == '_')) {
                    throw new IllegalArgumentException("URI host contains '" + c + "'");
                }
            }
        }
        Map<String, String> params = new LinkedHashMap<>();
        if (paramText != null) {
            for (String p : paramText.split(";", -1)) {
                if (p.isEmpty()) {
                    throw new IllegalArgumentException("URI has an empty parameter");
                }
                int eq = p.indexOf('=');
                String name = lowerCase(canonical(eq < 0 ? p : p.substring(0, eq)));
                String value = eq < 0 ? "" : canonical(p.substring(eq + 1));
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
            for (String h : headerText.split("&", -1)) {
                int eq = h.indexOf('=');
                String name = lowerCase(canonical(eq < 0 ? h : h.substring(0, eq)));
                String value = eq < 0 ? "" : canonical(h.substring(eq + 1));
                if (name.isEmpty()) {
                    throw new IllegalArgumentException("URI has a header without a name");
                }
                if (headers.putIfAbsent(name, value) != null) {
                    throw new IllegalArgumentException("URI repeats header '" + name + "'");
                }
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
     * "Any escaped characters MUST be converted to their unescaped form", so
     * here, unlike in {@link #equivalentTo}, {@code %3B} and {@code ;} are the
     * same; only {@code %} itself and octets that are not UTF-8 stay escaped,
     * so that no two different users share a key.
     */
    public AddressOfRecord toAddressOfRecord() {
        return new AddressOfRecord(unescapeForKey(user), host, port);
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

    /**
     * Writes a stored component out: characters safe in this position as
     * they are, {@code %HH} escapes of the canonical form passed through, and
     * anything else (as a component built by the constructor may hold)
     * escaped octet by octet.
     */
    private static String escape(String s, String safe) {
        StringBuilder b = new StringBuilder(s.length());
        for (byte by : s.getBytes(StandardCharsets.UTF_8)) {
            int c = by & 0xff;
            if (isUnreserved(c) || (c < 0x80 && safe.indexOf(c) >= 0)) {
                b.append((char) c);
            } else {
                appendEscape(b, c);
            }
        }
        // Undo the escaping of '%' where it already started a canonical escape.
        String out = b.toString();
        if (out.indexOf("%25") < 0) {
            return out;
        }
        StringBuilder fixed = new StringBuilder(out.length());
        for (int i = 0; i < out.length(); i++) {
            if (out.startsWith("%25", i) && i + 4 < out.length()
                    && hex(out.charAt(i + 3)) >= 0 && hex(out.charAt(i + 4)) >= 0) {
                fixed.append('%');
                i += 2;
            } else {
                fixed.append(out.charAt(i));
            }
        }
        return fixed.toString();
    }

    /**
     * The canonical escaped form of one raw component: escapes of unreserved
     * characters resolved, every other escape kept with upper-case hex, raw
     * non-ASCII characters escaped as UTF-8. A malformed escape is an error.
     */
    static String canonical(String s) {
        StringBuilder b = new StringBuilder(s.length());
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length()) {
                    throw new IllegalArgumentException("URI has a truncated escape");
                }
                int hi = hex(s.charAt(i + 1));
                int lo = hex(s.charAt(i + 2));
                if (hi < 0 || lo < 0) {
                    throw new IllegalArgumentException("URI has a malformed escape '" + s.substring(i, i + 3) + "'");
                }
                int octet = hi << 4 | lo;
                if (isUnreserved(octet)) {
                    b.append((char) octet);
                } else {
                    appendEscape(b, octet);
                }
                i += 3;
            } else if (c < 0x80) {
                b.append(c);
                i++;
            } else {
                int cp = s.codePointAt(i);
                for (byte by : new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8)) {
                    appendEscape(b, by & 0xff);
                }
                i += Character.charCount(cp);
            }
        }
        return b.toString();
    }

    /**
     * Resolves the escapes of a canonical user part for the AOR key: UTF-8
     * sequences and ASCII octets become characters; {@code %} itself and
     * octets that do not form UTF-8 stay escaped, so the result still maps
     * back to exactly one user.
     */
    static String unescapeForKey(String canonical) {
        if (canonical.indexOf('%') < 0) {
            return canonical;
        }
        StringBuilder b = new StringBuilder(canonical.length());
        int i = 0;
        while (i < canonical.length()) {
            char c = canonical.charAt(i);
            if (c != '%' || i + 2 >= canonical.length()
                    || hex(canonical.charAt(i + 1)) < 0 || hex(canonical.charAt(i + 2)) < 0) {
                b.append(c);
                i++;
                continue;
            }
            ByteArrayOutputStream run = new ByteArrayOutputStream();
            int j = i;
            while (j + 2 < canonical.length() && canonical.charAt(j) == '%'
                    && hex(canonical.charAt(j + 1)) >= 0 && hex(canonical.charAt(j + 2)) >= 0) {
                run.write(hex(canonical.charAt(j + 1)) << 4 | hex(canonical.charAt(j + 2)));
                j += 3;
            }
            decodeRun(run.toByteArray(), b);
            i = j;
        }
        return b.toString();
    }

    /** Appends a run of octets: valid UTF-8 as characters, {@code %} and stray octets as escapes. */
    private static void decodeRun(byte[] octets, StringBuilder b) {
        int k = 0;
        while (k < octets.length) {
            int first = octets[k] & 0xff;
            int len = first < 0x80 ? 1 : first >= 0xC2 && first <= 0xDF ? 2
                    : first >= 0xE0 && first <= 0xEF ? 3 : first >= 0xF0 && first <= 0xF4 ? 4 : 0;
            String decoded = null;
            if (len > 0 && k + len <= octets.length) {
                try {
                    decoded = StandardCharsets.UTF_8.newDecoder()
                            .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                            .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                            .decode(java.nio.ByteBuffer.wrap(octets, k, len)).toString();
                } catch (java.nio.charset.CharacterCodingException e) {
                    decoded = null;
                }
            }
            if (decoded == null || first == '%') {
                appendEscape(b, first);
                k++;
            } else {
                b.append(decoded);
                k += len;
            }
        }
    }

    private static void appendEscape(StringBuilder b, int octet) {
        b.append('%').append(HEX[octet >> 4]).append(HEX[octet & 15]);
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    /** RFC 2396 unreserved: alphanumerics and the marks. */
    private static boolean isUnreserved(int c) {
        return c < 0x80 && (isAsciiAlphanumeric((char) c) || UNRESERVED_MARKS.indexOf(c) >= 0);
    }

    private static boolean isAsciiAlphanumeric(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    /** Lower-cases a canonical component, keeping its escapes upper-case. */
    private static String lowerCase(String canonical) {
        StringBuilder b = new StringBuilder(canonical.length());
        for (int i = 0; i < canonical.length(); i++) {
            char c = canonical.charAt(i);
            if (c == '%' && i + 2 < canonical.length()) {
                b.append(canonical, i, i + 3);
                i += 2;
            } else {
                b.append(c >= 'A' && c <= 'Z' ? (char) (c + 32) : c);
            }
        }
        return b.toString();
    }

    /** Hex digits, colons and (for an embedded IPv4 tail) dots, with at least two colons. */
    private static boolean isIpv6Literal(String h) {
        int colons = 0;
        for (int i = 0; i < h.length(); i++) {
            char c = h.charAt(i);
            if (c == ':') {
                colons++;
            } else if (hex(c) < 0 && c != '.') {
                return false;
            }
        }
        return colons >= 2 && colons <= 7 && !h.contains(":::");
    }

    private static int parsePort(String text) {
        if (text.isEmpty() || text.length() > 5) {
            throw new IllegalArgumentException("URI has a bad port '" + text + "'");
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
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
