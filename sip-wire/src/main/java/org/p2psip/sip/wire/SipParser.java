package org.p2psip.sip.wire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiPredicate;

/**
 * The balancer's minimal SIP parser: it reads the start line and only the
 * headers routing needs (Via, Call-ID, To, From, CSeq, Max-Forwards, Route,
 * Content-Length), straight from the bytes, and skips every other header
 * after finding where its line ends. This is the "parse the first line and
 * little else" sorting that the TCP-for-SIP measurements recommend for a
 * front element under load.
 *
 * <p>It is strict where a mistake would be forwarded: RFC 3261 §7.3.1 line
 * folding and the compact forms of §7.3.3 ({@code v i t f l}) are
 * understood, so a folded or abbreviated header cannot hide from it;
 * duplicated single-valued headers, a CSeq method that disagrees with the
 * request (§8.1.1.5), a Content-Length larger than the message (§18.3),
 * control characters, a missing mandatory header (§8.1.1) or an unknown
 * SIP version all make the message malformed. Bytes after Content-Length in
 * a datagram are ignored as §18.3 says.
 */
public final class SipParser {

    /** More header lines than this is an attack, not a phone. */
    static final int MAX_HEADERS = 256;

    private static final int VIA = 1;
    private static final int CALL_ID = 2;
    private static final int TO = 3;
    private static final int FROM = 4;
    private static final int CSEQ = 5;
    private static final int CONTENT_LENGTH = 6;
    private static final int MAX_FORWARDS = 7;
    private static final int ROUTE = 8;
    private static final int OTHER = 0;

    private SipParser() {
    }

    /** Parses one whole message. */
    public static SipMessage parse(SipFrame frame) throws MalformedSipException {
        return parse(frame, false);
    }

    /**
     * Parses the header section of a message whose body is not there (a
     * message too large to receive whole), as far as needed to answer it:
     * {@code frame} holds the start line and complete header lines, ended
     * by an empty line. The result's {@code end} is the end of the frame.
     */
    public static SipMessage parseHead(SipFrame frame) throws MalformedSipException {
        return parse(frame, true);
    }

    /**
     * The Retry-After of a response in whole seconds (RFC 3261 §20.33:
     * delta-seconds, then an optional comment and parameters), or -1 when
     * it has none or it is not a number. Read on demand: only the router's
     * 503 handling needs it.
     */
    public static long retryAfterSeconds(SipMessage m) {
        byte[] b = m.bytes();
        return headerAfter(m, m.startLineEnd(), (name, h) -> name.equalsIgnoreCase("Retry-After")).map(h -> {
            int v = h.valueStart();
            int d = v;
            while (d < h.valueEnd() && d - v < 10 && b[d] >= '0' && b[d] <= '9') {
                d++;
            }
            return d == v ? -1 : Long.parseLong(ascii(b, v, d));
        }).orElse(-1L);
    }

    /**
     * The value of {@code m}'s first header called {@code name} (compared
     * ignoring case), trimmed; empty when it has none or the header section
     * cannot be read. For headers read on demand.
     */
    public static Optional<String> headerValue(SipMessage m, String name) {
        byte[] b = m.bytes();
        return headerAfter(m, m.startLineEnd(), (n, h) -> n.equalsIgnoreCase(name))
                .map(h -> ascii(b, h.valueStart(), h.valueEnd()).strip());
    }

    /**
     * The Route entry after {@code r} in {@code m}: the next one in the
     * same line, else the first of the next Route line; empty when there
     * is none or it cannot be read.
     */
    public static Optional<TopRoute> nextRoute(SipMessage m, TopRoute r) {
        byte[] b = m.bytes();
        try {
            if (r.nextStart() >= 0) {
                return Optional.of(routeAt(b, r.header(), r.nextStart()));
            }
            Optional<HeaderSpan> line = headerAfter(m, r.header().lineEnd(), (name, h) -> name.equalsIgnoreCase("Route"));
            return line.isEmpty() ? Optional.empty() : Optional.of(routeAt(b, line.get(), line.get().valueStart()));
        } catch (MalformedSipException e) {
            return Optional.empty();
        }
    }

    /**
     * Whether a Contact of {@code m} carries a {@code reg-id} parameter: the
     * UA asks for RFC 5626 outbound, so the edge proxy marks its Path
     * {@code ob} (§5.1).
     */
    public static boolean contactHasRegId(SipMessage m) {
        byte[] b = m.bytes();
        return headerAfter(m, m.startLineEnd(), (name, h) -> (name.equalsIgnoreCase("Contact")
                || name.equalsIgnoreCase("m")) && ascii(b, h.valueStart(), h.valueEnd()).toLowerCase(Locale.ROOT)
                .contains("reg-id")).isPresent();
    }

    /**
     * The first header line from offset {@code pos} of {@code m}'s header
     * section that {@code wanted} accepts, given its name as written; empty
     * when none does or a line cannot be read. For the few headers read on
     * demand rather than by {@link #parse}.
     */
    private static Optional<HeaderSpan> headerAfter(SipMessage m, int pos, BiPredicate<String, HeaderSpan> wanted) {
        byte[] b = m.bytes();
        int end = m.end();
        try {
            while (pos < end && b[pos] != '\n' && !(b[pos] == '\r' && pos + 1 < end && b[pos + 1] == '\n')) {
                HeaderSpan h = headerLine(b, pos, end);
                int nameEnd = pos;
                while (nameEnd < end && isTokenChar(b[nameEnd])) {
                    nameEnd++;
                }
                if (wanted.test(ascii(b, pos, nameEnd), h)) {
                    return Optional.of(h);
                }
                pos = h.lineEnd();
            }
        } catch (MalformedSipException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    private static SipMessage parse(SipFrame frame, boolean headOnly) throws MalformedSipException {
        byte[] b = frame.bytes();
        int len = b.length;
        int pos = 0;
        while (pos < len && (b[pos] == '\r' || b[pos] == '\n')) {
            pos++;
        }
        if (pos == len) {
            throw new MalformedSipException("empty message");
        }
        int startLineStart = pos;
        int eol = indexOf(b, pos, len, (byte) '\n');
        if (eol < 0) {
            throw new MalformedSipException("start line does not end");
        }
        int lineEnd = eol > pos && b[eol - 1] == '\r' ? eol - 1 : eol;
        for (int i = pos; i < lineEnd; i++) {
            if (isControl(b[i])) {
                throw new MalformedSipException("control character in the start line");
            }
        }
        int sp1 = indexOf(b, pos, lineEnd, (byte) ' ');
        if (sp1 <= pos) {
            throw new MalformedSipException("start line has no space");
        }
        boolean request;
        String method = null;
        String requestUri = null;
        int status = 0;
        if (startsWithIgnoreCase(b, pos, lineEnd, "SIP/")) {
            request = false;
            if (!equalsIgnoreCase(b, pos, sp1, "SIP/2.0")) {
                throw new MalformedSipException("unsupported SIP version");
            }
            if (sp1 + 4 > lineEnd || (sp1 + 4 < lineEnd && b[sp1 + 4] != ' ')) {
                throw new MalformedSipException("status code is not three digits");
            }
            for (int i = sp1 + 1; i < sp1 + 4; i++) {
                if (b[i] < '0' || b[i] > '9') {
                    throw new MalformedSipException("status code is not three digits");
                }
            }
            status = (b[sp1 + 1] - '0') * 100 + (b[sp1 + 2] - '0') * 10 + (b[sp1 + 3] - '0');
            if (status < 100 || status > 699) {
                throw new MalformedSipException("status code outside 100..699");
            }
        } else {
            request = true;
            for (int i = pos; i < sp1; i++) {
                if (!isTokenChar(b[i])) {
                    throw new MalformedSipException("method is not a token");
                }
            }
            method = ascii(b, pos, sp1);
            int sp2 = indexOf(b, sp1 + 1, lineEnd, (byte) ' ');
            if (sp2 < 0 || sp2 == sp1 + 1) {
                throw new MalformedSipException("request line is not METHOD URI VERSION");
            }
            requestUri = ascii(b, sp1 + 1, sp2);
            if (requestUri.indexOf(':') <= 0) {
                throw new MalformedSipException("Request-URI has no scheme");
            }
            if (!equalsIgnoreCase(b, sp2 + 1, lineEnd, "SIP/2.0")) {
                throw new MalformedSipException("unsupported SIP version");
            }
        }
        int startLineEnd = eol + 1;
        pos = startLineEnd;

        List<HeaderSpan> vias = new ArrayList<>(4);
        HeaderSpan callId = null;
        HeaderSpan to = null;
        HeaderSpan from = null;
        HeaderSpan cseq = null;
        HeaderSpan contentLength = null;
        HeaderSpan maxForwards = null;
        HeaderSpan route = null;
        int headers = 0;
        int bodyStart;
        while (true) {
            if (pos >= len) {
                throw new MalformedSipException("headers do not end with an empty line");
            }
            if (b[pos] == '\n') {
                bodyStart = pos + 1;
                break;
            }
            if (b[pos] == '\r' && pos + 1 < len && b[pos + 1] == '\n') {
                bodyStart = pos + 2;
                break;
            }
            if (++headers > MAX_HEADERS) {
                throw new MalformedSipException("more than " + MAX_HEADERS + " header lines");
            }
            HeaderSpan h = headerLine(b, pos, len);
            switch (headerId(b, pos)) {
                case VIA -> vias.add(h);
                case CALL_ID -> callId = single(callId, h, "Call-ID");
                case TO -> to = single(to, h, "To");
                case FROM -> from = single(from, h, "From");
                case CSEQ -> cseq = single(cseq, h, "CSeq");
                case CONTENT_LENGTH -> contentLength = single(contentLength, h, "Content-Length");
                case MAX_FORWARDS -> maxForwards = single(maxForwards, h, "Max-Forwards");
                case ROUTE -> route = route == null ? h : route;
                default -> {
                    // Not needed for routing: carried through unread.
                }
            }
            pos = h.lineEnd();
        }
        if (vias.isEmpty()) {
            throw new MalformedSipException("no Via");
        }
        if (callId == null || to == null || from == null || cseq == null) {
            throw new MalformedSipException("missing " + (callId == null ? "Call-ID" : to == null ? "To"
                    : from == null ? "From" : "CSeq"));
        }

        String callIdText = text(b, callId);
        if (callIdText.isEmpty() || callIdText.chars().anyMatch(c -> c == ' ' || c == '\t')) {
            throw new MalformedSipException("Call-ID is empty or contains white space");
        }
        String cseqText = text(b, cseq);
        int cseqSpace = firstBlank(cseqText);
        if (cseqSpace <= 0) {
            throw new MalformedSipException("CSeq is not NUMBER METHOD");
        }
        long cseqNumber = digits(cseqText.substring(0, cseqSpace), 10, "CSeq number");
        if (cseqNumber > 0x7FFFFFFFL) {
            throw new MalformedSipException("CSeq number is not below 2**31");
        }
        String cseqMethod = cseqText.substring(cseqSpace).strip();
        if (cseqMethod.isEmpty() || !cseqMethod.chars().allMatch(c -> c < 128 && isTokenChar((byte) c))) {
            throw new MalformedSipException("CSeq method is not a token");
        }
        if (request && !cseqMethod.equals(method)) {
            throw new MalformedSipException("CSeq method differs from the request method");
        }
        if (!request) {
            method = cseqMethod;
        }
        String[] toParts = nameAddr(text(b, to), "To");
        nameAddr(text(b, from), "From");

        int maxForwardsValue = -1;
        if (maxForwards != null) {
            maxForwardsValue = (int) digits(text(b, maxForwards), 9, "Max-Forwards");
        }
        int end = len;
        if (contentLength != null) {
            long declared = digits(text(b, contentLength), 10, "Content-Length");
            if (declared > len - bodyStart && !headOnly) {
                throw new MalformedSipException("body is shorter than Content-Length");
            }
            end = headOnly ? len : bodyStart + (int) declared;
        } else if (frame.transport().stream() && !headOnly) {
            throw new MalformedSipException("no Content-Length on a stream transport");
        }
        TopVia topVia = topVia(b, vias.get(0));
        TopRoute topRoute = route == null ? null : routeAt(b, route, route.valueStart());
        return new SipMessage(frame, request, method, status, requestUri, startLineStart, startLineEnd,
                callIdText, toParts[0], toParts[1], cseqNumber, vias, topVia, from, to, callId, cseq, maxForwards,
                maxForwardsValue, topRoute, end);
    }

    /**
     * The Content-Length of the message whose header section is
     * {@code b[0..headerEnd)}, for framing a stream (RFC 3261 §18.3): the
     * value, or -1 when the header is absent.
     *
     * @throws MalformedSipException when it is repeated, not a number, or a header line is broken
     */
    public static long contentLength(byte[] b, int headerEnd) throws MalformedSipException {
        int pos = indexOf(b, 0, headerEnd, (byte) '\n');
        if (pos < 0) {
            throw new MalformedSipException("start line does not end");
        }
        pos++;
        HeaderSpan found = null;
        int headers = 0;
        while (pos < headerEnd && b[pos] != '\n' && !(b[pos] == '\r' && pos + 1 < headerEnd && b[pos + 1] == '\n')) {
            if (++headers > MAX_HEADERS) {
                throw new MalformedSipException("more than " + MAX_HEADERS + " header lines");
            }
            HeaderSpan h = headerLine(b, pos, headerEnd);
            if (headerId(b, pos) == CONTENT_LENGTH) {
                found = single(found, h, "Content-Length");
            }
            pos = h.lineEnd();
        }
        return found == null ? -1 : digits(text(b, found), 10, "Content-Length");
    }

    /** One header line starting at {@code pos}, with its continuation lines (RFC 3261 §7.3.1). */
    private static HeaderSpan headerLine(byte[] b, int pos, int len) throws MalformedSipException {
        if (b[pos] == ' ' || b[pos] == '\t') {
            throw new MalformedSipException("continuation line without a header");
        }
        int nameEnd = pos;
        while (nameEnd < len && isTokenChar(b[nameEnd])) {
            nameEnd++;
        }
        if (nameEnd == pos) {
            throw new MalformedSipException("header line without a name");
        }
        int colon = nameEnd;
        while (colon < len && (b[colon] == ' ' || b[colon] == '\t')) {
            colon++;
        }
        if (colon >= len || b[colon] != ':') {
            throw new MalformedSipException("header line without a colon");
        }
        int lf = indexOf(b, colon + 1, len, (byte) '\n');
        if (lf < 0) {
            throw new MalformedSipException("header line does not end");
        }
        while (lf + 1 < len && (b[lf + 1] == ' ' || b[lf + 1] == '\t')) {
            int next = indexOf(b, lf + 1, len, (byte) '\n');
            if (next < 0) {
                throw new MalformedSipException("header line does not end");
            }
            lf = next;
        }
        int vs = colon + 1;
        int ve = lf;
        for (int i = vs; i < ve; i++) {
            byte c = b[i];
            if (c == '\r') {
                if (b[i + 1] != '\n') {
                    throw new MalformedSipException("bare CR in a header");
                }
            } else if (c != '\n' && isControl(c)) {
                throw new MalformedSipException("control character in a header");
            }
        }
        while (vs < ve && isLws(b[vs])) {
            vs++;
        }
        while (ve > vs && isLws(b[ve - 1])) {
            ve--;
        }
        return new HeaderSpan(pos, vs, ve, lf + 1);
    }

    private static int headerId(byte[] b, int pos) {
        int end = pos;
        while (isTokenChar(b[end])) {
            end++;
        }
        int n = end - pos;
        if (n == 1) {
            return switch (b[pos] | 0x20) {
                case 'v' -> VIA;
                case 'i' -> CALL_ID;
                case 't' -> TO;
                case 'f' -> FROM;
                case 'l' -> CONTENT_LENGTH;
                default -> OTHER;
            };
        }
        if (equalsIgnoreCase(b, pos, end, "Via")) {
            return VIA;
        } else if (equalsIgnoreCase(b, pos, end, "Call-ID")) {
            return CALL_ID;
        } else if (equalsIgnoreCase(b, pos, end, "To")) {
            return TO;
        } else if (equalsIgnoreCase(b, pos, end, "From")) {
            return FROM;
        } else if (equalsIgnoreCase(b, pos, end, "CSeq")) {
            return CSEQ;
        } else if (equalsIgnoreCase(b, pos, end, "Content-Length")) {
            return CONTENT_LENGTH;
        } else if (equalsIgnoreCase(b, pos, end, "Max-Forwards")) {
            return MAX_FORWARDS;
        } else if (equalsIgnoreCase(b, pos, end, "Route")) {
            return ROUTE;
        }
        return OTHER;
    }

    private static HeaderSpan single(HeaderSpan existing, HeaderSpan h, String name) throws MalformedSipException {
        if (existing != null) {
            throw new MalformedSipException("more than one " + name);
        }
        return h;
    }

    /**
     * The first via-parm of a Via value: sent-protocol, sent-by, params
     * (RFC 3261 §20.42, §25.1), with LWS allowed around the slashes.
     */
    static TopVia topVia(byte[] b, HeaderSpan h) throws MalformedSipException {
        int p = h.valueStart();
        int e = h.valueEnd();
        int[] cursor = {p};
        String protocol = token(b, cursor, e, "Via protocol");
        slash(b, cursor, e);
        String version = token(b, cursor, e, "Via version");
        slash(b, cursor, e);
        String transport = token(b, cursor, e, "Via transport").toUpperCase(Locale.ROOT);
        if (!"SIP".equalsIgnoreCase(protocol) || !"2.0".equals(version)) {
            throw new MalformedSipException("Via is not SIP/2.0");
        }
        p = cursor[0];
        int before = p;
        p = skipLws(b, p, e);
        if (p == before) {
            throw new MalformedSipException("Via has no space before sent-by");
        }
        String host;
        if (p < e && b[p] == '[') {
            int close = indexOf(b, p, e, (byte) ']');
            if (close < 0) {
                throw new MalformedSipException("Via IPv6 host has no ']'");
            }
            host = ascii(b, p + 1, close);
            p = close + 1;
        } else {
            int hs = p;
            while (p < e && b[p] != ':' && b[p] != ';' && b[p] != ',' && !isLws(b[p])) {
                p++;
            }
            host = ascii(b, hs, p);
        }
        if (host.isEmpty()) {
            throw new MalformedSipException("Via has no sent-by host");
        }
        int port = -1;
        p = skipLws(b, p, e);
        if (p < e && b[p] == ':') {
            p = skipLws(b, p + 1, e);
            int ps = p;
            while (p < e && b[p] >= '0' && b[p] <= '9') {
                p++;
            }
            if (p == ps || p - ps > 5) {
                throw new MalformedSipException("Via port is not a number");
            }
            port = Integer.parseInt(ascii(b, ps, p));
            if (port > 65535) {
                throw new MalformedSipException("Via port outside 0..65535");
            }
        }
        Map<String, String> params = new HashMap<>();
        int rportEnd = -1;
        int parmEnd = p;
        p = skipLws(b, p, e);
        while (p < e && b[p] == ';') {
            p = skipLws(b, p + 1, e);
            int ns = p;
            while (p < e && isTokenChar(b[p])) {
                p++;
            }
            if (p == ns) {
                throw new MalformedSipException("Via parameter without a name");
            }
            String name = ascii(b, ns, p).toLowerCase(Locale.ROOT);
            int nameEnd = p;
            String value = "";
            p = skipLws(b, p, e);
            if (p < e && b[p] == '=') {
                p = skipLws(b, p + 1, e);
                int vs = p;
                if (p < e && b[p] == '"') {
                    p = quotedEnd(b, p, e);
                } else {
                    while (p < e && b[p] != ';' && b[p] != ',' && !isLws(b[p])) {
                        p++;
                    }
                }
                value = ascii(b, vs, p);
                parmEnd = p;
            } else {
                parmEnd = nameEnd;
                if ("rport".equals(name)) {
                    rportEnd = nameEnd;
                }
            }
            if (params.putIfAbsent(name, value) != null) {
                throw new MalformedSipException("Via repeats parameter " + name);
            }
            p = skipLws(b, p, e);
        }
        int nextStart = -1;
        if (p < e) {
            if (b[p] != ',') {
                throw new MalformedSipException("Via has junk after its parameters");
            }
            nextStart = skipLws(b, p + 1, e);
            if (nextStart >= e) {
                throw new MalformedSipException("Via ends with a comma");
            }
        }
        String branch = params.get("branch");
        if (branch != null && branch.isEmpty()) {
            throw new MalformedSipException("Via branch is empty");
        }
        return new TopVia(transport, host.toLowerCase(Locale.ROOT), port, params, rportEnd, parmEnd, h, nextStart);
    }

    private static TopRoute routeAt(byte[] b, HeaderSpan h, int start) throws MalformedSipException {
        int p = start;
        int e = h.valueEnd();
        int lt = -1;
        int gt = -1;
        while (p < e) {
            byte c = b[p];
            if (c == '"') {
                p = quotedEnd(b, p, e);
                continue;
            }
            if (c == '<' && lt < 0) {
                lt = p;
            } else if (c == '>' && lt >= 0 && gt < 0) {
                gt = p;
            } else if (c == ',' && (lt < 0 || gt >= 0)) {
                break;
            }
            p++;
        }
        if (lt < 0 || gt < 0) {
            throw new MalformedSipException("Route entry is not <URI>");
        }
        int nextStart = -1;
        if (p < e) {
            nextStart = skipLws(b, p + 1, e);
            if (nextStart >= e) {
                throw new MalformedSipException("Route ends with a comma");
            }
        }
        return new TopRoute(new String(b, lt + 1, gt - lt - 1, StandardCharsets.UTF_8).strip(), h, start, nextStart);
    }

    /**
     * The URI and tag of a From or To value: {@code [display] <uri>;params}
     * or a bare {@code uri;params}, where the parameters belong to the
     * header (RFC 3261 §20.10).
     */
    static String[] nameAddr(String v, String name) throws MalformedSipException {
        int i = 0;
        int lt = -1;
        while (i < v.length()) {
            char c = v.charAt(i);
            if (c == '"') {
                int close = i + 1;
                while (close < v.length() && v.charAt(close) != '"') {
                    close += v.charAt(close) == '\\' ? 2 : 1;
                }
                if (close >= v.length()) {
                    throw new MalformedSipException(name + " has an unterminated quoted string");
                }
                i = close + 1;
                continue;
            }
            if (c == '<') {
                lt = i;
                break;
            }
            if (c == ';') {
                break;
            }
            i++;
        }
        String uri;
        String params;
        if (lt >= 0) {
            int gt = v.indexOf('>', lt);
            if (gt < 0) {
                throw new MalformedSipException(name + " has '<' without '>'");
            }
            uri = v.substring(lt + 1, gt).strip();
            params = v.substring(gt + 1);
        } else {
            int semi = v.indexOf(';');
            uri = (semi < 0 ? v : v.substring(0, semi)).strip();
            params = semi < 0 ? "" : v.substring(semi);
        }
        if (uri.indexOf(':') <= 0 || uri.chars().anyMatch(c -> c == ' ' || c == '\t')) {
            throw new MalformedSipException(name + " has no valid URI");
        }
        String tag = null;
        for (String param : params.split(";")) {
            String p = param.strip();
            int eq = p.indexOf('=');
            if (eq > 0 && p.substring(0, eq).strip().equalsIgnoreCase("tag")) {
                tag = p.substring(eq + 1).strip();
                if (tag.isEmpty()) {
                    throw new MalformedSipException(name + " has an empty tag");
                }
            }
        }
        return new String[] {uri, tag};
    }

    /** A header value as text, folded lines joined by one space (RFC 3261 §7.3.1). */
    static String text(byte[] b, HeaderSpan h) {
        int s = h.valueStart();
        int e = h.valueEnd();
        boolean folded = false;
        for (int i = s; i < e; i++) {
            if (b[i] == '\n') {
                folded = true;
                break;
            }
        }
        if (!folded) {
            return new String(b, s, e - s, StandardCharsets.UTF_8);
        }
        StringBuilder out = new StringBuilder(e - s);
        String raw = new String(b, s, e - s, StandardCharsets.UTF_8);
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '\r' || c == '\n') {
                while (i + 1 < raw.length() && isLws((byte) raw.charAt(i + 1))) {
                    i++;
                }
                if (out.length() > 0 && out.charAt(out.length() - 1) != ' ') {
                    out.append(' ');
                }
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static long digits(String s, int maxDigits, String what) throws MalformedSipException {
        String t = s.strip();
        if (t.isEmpty() || t.length() > maxDigits) {
            throw new MalformedSipException(what + " is not a number");
        }
        long v = 0;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c < '0' || c > '9') {
                throw new MalformedSipException(what + " is not a number");
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    private static String token(byte[] b, int[] cursor, int e, String what) throws MalformedSipException {
        int p = skipLws(b, cursor[0], e);
        int s = p;
        while (p < e && isTokenChar(b[p])) {
            p++;
        }
        if (p == s) {
            throw new MalformedSipException(what + " is missing");
        }
        cursor[0] = p;
        return ascii(b, s, p);
    }

    private static void slash(byte[] b, int[] cursor, int e) throws MalformedSipException {
        int p = skipLws(b, cursor[0], e);
        if (p >= e || b[p] != '/') {
            throw new MalformedSipException("Via sent-protocol lacks '/'");
        }
        cursor[0] = p + 1;
    }

    private static int quotedEnd(byte[] b, int p, int e) throws MalformedSipException {
        int i = p + 1;
        while (i < e && b[i] != '"') {
            i += b[i] == '\\' ? 2 : 1;
        }
        if (i >= e) {
            throw new MalformedSipException("unterminated quoted string");
        }
        return i + 1;
    }

    private static int firstBlank(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == ' ' || s.charAt(i) == '\t') {
                return i;
            }
        }
        return -1;
    }

    static int indexOf(byte[] b, int from, int to, byte c) {
        for (int i = from; i < to; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }

    private static int skipLws(byte[] b, int p, int e) {
        while (p < e && isLws(b[p])) {
            p++;
        }
        return p;
    }

    private static boolean isLws(byte c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    private static boolean isControl(byte c) {
        return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7f;
    }

    /** RFC 3261 §25.1 token characters. */
    static boolean isTokenChar(byte c) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
            return true;
        }
        return switch (c) {
            case '-', '.', '!', '%', '*', '_', '+', '`', '\'', '~' -> true;
            default -> false;
        };
    }

    private static String ascii(byte[] b, int s, int e) {
        return new String(b, s, e - s, StandardCharsets.ISO_8859_1);
    }

    private static boolean equalsIgnoreCase(byte[] b, int s, int e, String expected) {
        return e - s == expected.length() && startsWithIgnoreCase(b, s, e, expected);
    }

    private static boolean startsWithIgnoreCase(byte[] b, int s, int e, String prefix) {
        if (e - s < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (Character.toLowerCase((char) (b[s + i] & 0xff)) != Character.toLowerCase(prefix.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
