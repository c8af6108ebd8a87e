package org.p2psip.loadtest.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The parts of a SIP message the load generator acts on, read by a small
 * parser of its own (RFC 3261 §7 and §20): start line, the headers that
 * match transactions and dialogs (Via, Call-ID, CSeq, From, To, Contact,
 * Record-Route), compact header forms (§7.3.3) and folded lines. Anything
 * else is skipped; a message missing Call-ID, CSeq or Via is rejected,
 * since nothing could be matched with it.
 *
 * @param request      whether this is a request
 * @param method       the request's method; for a response the CSeq method
 * @param requestUri   the request's Request-URI; null for a response
 * @param status       the response's status code; 0 for a request
 * @param callId       Call-ID
 * @param cseq         CSeq number
 * @param vias         every Via value, top first, exactly as received
 * @param from         the From value as received
 * @param to           the To value as received
 * @param toTag        the To tag, or null
 * @param contactUri   the first Contact's URI (without angle brackets), or null
 * @param recordRoutes every Record-Route value, top first, one entry per route
 * @param body         the message body (empty when none)
 * @param challenges   every WWW-Authenticate and Proxy-Authenticate value, in order, each whole
 * @param retryAfter   the seconds of a Retry-After header (RFC 3261 §20.33), or -1 when there is none
 *                     or it is not a number
 */
public record SipMessage(boolean request, String method, String requestUri, int status, String callId, long cseq,
                         List<String> vias, String from, String to, String toTag, String contactUri,
                         List<String> recordRoutes, byte[] body, List<String> challenges, int retryAfter) {

    /** The branch parameter of the top Via, which names the transaction (§17.1.3), or null. */
    public String topBranch() {
        return param(vias.get(0), "branch");
    }

    /** Parses one message, or throws {@link IllegalArgumentException} saying what is wrong. */
    public static SipMessage parse(byte[] bytes) {
        int headerEnd = indexOf(bytes, 0);
        int bodyStart;
        if (headerEnd < 0) {
            headerEnd = bytes.length;
            bodyStart = bytes.length;
        } else {
            bodyStart = headerEnd + (bytes[headerEnd] == '\r' ? 4 : 2);
        }
        String head = new String(bytes, 0, headerEnd, StandardCharsets.ISO_8859_1);
        List<String> lines = unfold(head);
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("empty message");
        }
        String start = lines.get(0);
        boolean request;
        String method = null;
        String requestUri = null;
        int status = 0;
        if (start.startsWith("SIP/2.0 ")) {
            request = false;
            if (start.length() < 11) {
                throw new IllegalArgumentException("bad status line: " + start);
            }
            try {
                status = Integer.parseInt(start.substring(8, 11));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad status line: " + start);
            }
        } else {
            request = true;
            int sp1 = start.indexOf(' ');
            int sp2 = start.lastIndexOf(' ');
            if (sp1 <= 0 || sp2 <= sp1 || !start.endsWith("SIP/2.0")) {
                throw new IllegalArgumentException("bad request line: " + start);
            }
            method = start.substring(0, sp1);
            requestUri = start.substring(sp1 + 1, sp2);
        }
        String callId = null;
        String cseqValue = null;
        String from = null;
        String to = null;
        String contact = null;
        int retryAfter = -1;
        List<String> vias = new ArrayList<>(4);
        List<String> recordRoutes = new ArrayList<>(2);
        List<String> challenges = new ArrayList<>(0);
        for (int i = 1; i < lines.size(); i++) {
            String line = lines.get(i);
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim();
            switch (name) {
                case "call-id", "i" -> callId = value;
                case "cseq" -> cseqValue = value;
                case "from", "f" -> from = value;
                case "to", "t" -> to = value;
                case "via", "v" -> vias.addAll(splitList(value));
                case "record-route" -> recordRoutes.addAll(splitList(value));
                case "www-authenticate", "proxy-authenticate" -> challenges.add(value);
                case "retry-after" -> retryAfter = seconds(value);
                case "contact", "m" -> {
                    if (contact == null) {
                        contact = value;
                    }
                }
                default -> {
                }
            }
        }
        if (callId == null || cseqValue == null || vias.isEmpty()) {
            throw new IllegalArgumentException("missing Call-ID, CSeq or Via");
        }
        int sp = cseqValue.indexOf(' ');
        long cseq;
        try {
            cseq = Long.parseLong(sp < 0 ? cseqValue : cseqValue.substring(0, sp).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad CSeq: " + cseqValue);
        }
        if (!request) {
            method = sp < 0 ? "" : cseqValue.substring(sp + 1).trim();
        }
        byte[] body = bodyStart >= bytes.length ? new byte[0]
                : java.util.Arrays.copyOfRange(bytes, bodyStart, bytes.length);
        return new SipMessage(request, method, requestUri, status, callId, cseq, List.copyOf(vias), from, to,
                to == null ? null : param(to, "tag"), contact == null ? null : uriOf(contact),
                List.copyOf(recordRoutes), body, List.copyOf(challenges), retryAfter);
    }

    /** The delta-seconds that open a Retry-After value ("2", "120 (busy);duration=60"), or -1. */
    private static int seconds(String value) {
        int end = 0;
        while (end < value.length() && end < 9 && Character.isDigit(value.charAt(end))) {
            end++;
        }
        return end == 0 ? -1 : Integer.parseInt(value.substring(0, end));
    }

    /** The URI inside a name-addr ({@code "Bob" <sip:b@h>;tag=x}) or an addr-spec ({@code sip:b@h}). */
    public static String uriOf(String nameAddr) {
        int lt = nameAddr.indexOf('<');
        if (lt >= 0) {
            int gt = nameAddr.indexOf('>', lt);
            return gt < 0 ? nameAddr.substring(lt + 1) : nameAddr.substring(lt + 1, gt);
        }
        int semi = nameAddr.indexOf(';');
        return (semi < 0 ? nameAddr : nameAddr.substring(0, semi)).trim();
    }

    /**
     * A header parameter ({@code ;name=value}) outside angle brackets, or
     * null; a parameter without a value gives the empty string.
     */
    public static String param(String headerValue, String name) {
        int from = headerValue.lastIndexOf('>') + 1;
        int n = headerValue.length();
        int i = headerValue.indexOf(';', from);
        while (i >= 0 && i < n) {
            int end = headerValue.indexOf(';', i + 1);
            if (end < 0) {
                end = n;
            }
            String p = headerValue.substring(i + 1, end).trim();
            int eq = p.indexOf('=');
            String key = eq < 0 ? p : p.substring(0, eq).trim();
            if (key.equalsIgnoreCase(name)) {
                return eq < 0 ? "" : p.substring(eq + 1).trim();
            }
            i = end;
        }
        return null;
    }

    /** Splits a comma-separated header value, leaving commas inside quotes and angle brackets alone (§7.3.1). */
    static List<String> splitList(String value) {
        List<String> out = new ArrayList<>(1);
        int depth = 0;
        boolean quoted = false;
        int from = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' && (i == 0 || value.charAt(i - 1) != '\\')) {
                quoted = !quoted;
            } else if (!quoted && c == '<') {
                depth++;
            } else if (!quoted && c == '>') {
                depth--;
            } else if (!quoted && depth == 0 && c == ',') {
                String part = value.substring(from, i).trim();
                if (!part.isEmpty()) {
                    out.add(part);
                }
                from = i + 1;
            }
        }
        String last = value.substring(from).trim();
        if (!last.isEmpty()) {
            out.add(last);
        }
        return out;
    }

    /** Where the header block ends: the index of the blank line's CRLFCRLF (or LFLF), or -1. */
    static int indexOf(byte[] b, int from) {
        for (int i = from; i + 1 < b.length; i++) {
            if (b[i] == '\n' && b[i + 1] == '\n') {
                return i;
            }
            if (i + 3 < b.length && b[i] == '\r' && b[i + 1] == '\n' && b[i + 2] == '\r' && b[i + 3] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** Header lines with folded continuations (§7.3.1) joined back on. */
    private static List<String> unfold(String head) {
        List<String> lines = new ArrayList<>(16);
        int i = 0;
        int n = head.length();
        while (i < n) {
            int nl = head.indexOf('\n', i);
            int end = nl < 0 ? n : nl;
            int stop = end > i && head.charAt(end - 1) == '\r' ? end - 1 : end;
            String line = head.substring(i, stop);
            if (!lines.isEmpty() && !line.isEmpty() && (line.charAt(0) == ' ' || line.charAt(0) == '\t')) {
                lines.set(lines.size() - 1, lines.get(lines.size() - 1) + ' ' + line.trim());
            } else if (!line.isEmpty()) {
                lines.add(line);
            }
            i = end + 1;
        }
        return lines;
    }
}
