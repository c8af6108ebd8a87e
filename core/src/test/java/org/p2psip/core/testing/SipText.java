package org.p2psip.core.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A SIP message as text, parsed just enough for tests to look at: the
 * first line, headers (compact names expanded, order kept) and the body.
 */
public record SipText(String firstLine, List<Map.Entry<String, String>> headers, String body) {

    private static final Map<String, String> COMPACT = Map.of("v", "via", "f", "from", "t", "to", "i", "call-id",
            "m", "contact", "l", "content-length", "c", "content-type", "k", "supported");

    public static SipText parse(byte[] data, int length) {
        return parse(new String(data, 0, length, StandardCharsets.ISO_8859_1));
    }

    public static SipText parse(String text) {
        int end = text.indexOf("\r\n\r\n");
        String head = end < 0 ? text : text.substring(0, end);
        String body = end < 0 ? "" : text.substring(end + 4);
        String[] lines = head.split("\r\n");
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            if ((line.startsWith(" ") || line.startsWith("\t")) && !headers.isEmpty()) {
                Map.Entry<String, String> last = headers.remove(headers.size() - 1);
                headers.add(Map.entry(last.getKey(), last.getValue() + " " + line.trim()));
                continue;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            headers.add(Map.entry(COMPACT.getOrDefault(name, name), line.substring(colon + 1).trim()));
        }
        return new SipText(lines[0], List.copyOf(headers), body);
    }

    public boolean isResponse() {
        return firstLine.startsWith("SIP/2.0 ");
    }

    /** The status code of a response; -1 for a request. */
    public int status() {
        return isResponse() ? Integer.parseInt(firstLine.substring(8, 11)) : -1;
    }

    public String reason() {
        return isResponse() && firstLine.length() > 12 ? firstLine.substring(12) : "";
    }

    /** The method of a request, or of the CSeq of a response. */
    public String method() {
        if (isResponse()) {
            String cseq = header("cseq").orElse("");
            return cseq.substring(cseq.indexOf(' ') + 1).trim();
        }
        return firstLine.substring(0, firstLine.indexOf(' '));
    }

    public String requestUri() {
        String[] parts = firstLine.split(" ");
        return parts[1];
    }

    public Optional<String> header(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return headers.stream().filter(h -> h.getKey().equals(n)).map(Map.Entry::getValue).findFirst();
    }

    /** Every {@code name} header line's value as written, lists not split (WWW-Authenticate, ...). */
    public List<String> rawHeaders(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return headers.stream().filter(h -> h.getKey().equals(n)).map(Map.Entry::getValue).toList();
    }

    /** Every value of {@code name}, comma-separated lists split (not inside <> or quotes). */
    public List<String> headers(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, String> h : headers) {
            if (h.getKey().equals(n)) {
                out.addAll(splitList(h.getValue()));
            }
        }
        return out;
    }

    /** The tag parameter of the named header (From or To). */
    public Optional<String> tag(String name) {
        return header(name).flatMap(v -> {
            int close = v.lastIndexOf('>');
            String params = close < 0 ? v : v.substring(close + 1);
            for (String p : params.split(";")) {
                String t = p.trim();
                if (t.toLowerCase(Locale.ROOT).startsWith("tag=")) {
                    return Optional.of(t.substring(4));
                }
            }
            return Optional.empty();
        });
    }

    /** The URI inside the angle brackets of a name-addr, or the value up to the first ';'. */
    public static String uriOf(String nameAddr) {
        int lt = nameAddr.indexOf('<');
        if (lt >= 0) {
            return nameAddr.substring(lt + 1, nameAddr.indexOf('>', lt));
        }
        int semi = nameAddr.indexOf(';');
        return (semi < 0 ? nameAddr : nameAddr.substring(0, semi)).trim();
    }

    private static List<String> splitList(String value) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && c == '<') {
                depth++;
            } else if (!quoted && c == '>') {
                depth--;
            } else if (!quoted && depth == 0 && c == ',') {
                parts.add(value.substring(start, i).trim());
                start = i + 1;
            }
        }
        parts.add(value.substring(start).trim());
        return parts;
    }

    /**
     * A response to this request as a UAS would build it (RFC 3261 §8.2.6):
     * Via, From, To (with {@code toTag} if none), Call-ID, CSeq and
     * Record-Route copied.
     */
    public String response(int status, String reason, String toTag, String... extraHeaders) {
        StringBuilder b = new StringBuilder("SIP/2.0 ").append(status).append(' ').append(reason).append("\r\n");
        for (Map.Entry<String, String> h : headers) {
            switch (h.getKey()) {
                case "via", "from", "call-id", "cseq" -> b.append(canonical(h.getKey())).append(": ").append(h.getValue()).append("\r\n");
                case "record-route" -> {
                    if (status > 100 && status < 300) {
                        b.append("Record-Route: ").append(h.getValue()).append("\r\n");
                    }
                }
                case "to" -> {
                    String to = h.getValue();
                    if (toTag != null && tag("to").isEmpty() && status > 100) {
                        to = to + ";tag=" + toTag;
                    }
                    b.append("To: ").append(to).append("\r\n");
                }
                default -> {
                }
            }
        }
        for (String extra : extraHeaders) {
            b.append(extra).append("\r\n");
        }
        return b.append("Content-Length: 0\r\n\r\n").toString();
    }

    private static String canonical(String name) {
        return switch (name) {
            case "via" -> "Via";
            case "from" -> "From";
            case "call-id" -> "Call-ID";
            case "cseq" -> "CSeq";
            default -> name;
        };
    }
}
