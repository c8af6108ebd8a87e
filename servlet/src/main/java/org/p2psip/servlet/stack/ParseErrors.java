package org.p2psip.servlet.stack;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Turns a JAIN-SIP parse error into a reason phrase a person can read.
 *
 * <p>The RI answers a request it cannot parse with
 * {@code 400 Bad Request (<exception message>)}, and its messages hold the
 * offending line, a newline (which would break the status line) and
 * sometimes the identity hash of a char array ({@code [C@1b6d3586}). This
 * keeps the phrase on one line and names what is wrong: the header, or
 * the Request-Line.
 */
final class ParseErrors {

    private static final Pattern ARRAY_IDENTITY = Pattern.compile("\\[C@[0-9a-fA-F]+");
    private static final Pattern HEADER_LINE = Pattern.compile("^([A-Za-z0-9!%*_+`'~.-]+)\\s*:.*", Pattern.DOTALL);
    private static final Pattern REQUEST_LINE = Pattern.compile("^[A-Za-z0-9!%*_+`'~.-]+ \\S.* SIP/\\S+$");
    private static final int MAX_DETAIL = 80;

    private ParseErrors() {
    }

    static String describe(String parserMessage) {
        if (parserMessage == null || parserMessage.isBlank()) {
            return "Malformed message";
        }
        String text = ARRAY_IDENTITY.matcher(parserMessage).replaceAll("").replace('\r', '\n');
        int nl = text.indexOf('\n');
        String first = (nl < 0 ? text : text.substring(0, nl)).trim();
        String detail = oneLine(nl < 0 ? "" : text.substring(nl + 1));
        if (detail.startsWith(":")) {
            detail = detail.substring(1).trim();
        }
        if (REQUEST_LINE.matcher(first).matches()) {
            return "Malformed Request-Line";
        }
        var header = HEADER_LINE.matcher(first);
        if (nl >= 0 && header.matches()) {
            return "Malformed " + canonical(header.group(1)) + " header";
        }
        String all = oneLine(text);
        if (all.length() > MAX_DETAIL) {
            all = all.substring(0, MAX_DETAIL);
        }
        return all.isEmpty() ? "Malformed message" : "Malformed message: " + all;
    }

    private static String oneLine(String s) {
        return s.replaceAll("\\s+", " ").trim();
    }

    private static String canonical(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "l" -> "Content-Length";
            case "v" -> "Via";
            case "i" -> "Call-ID";
            case "f" -> "From";
            case "t" -> "To";
            case "m" -> "Contact";
            case "c" -> "Content-Type";
            default -> name;
        };
    }
}
