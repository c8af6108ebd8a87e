package org.p2psip.core.json;

import java.util.Locale;

/**
 * A JSON string literal (RFC 8259 §7), for the few JSON documents the
 * commands write by hand: the benchmark reports and the admin commands'
 * {@code --json}. No JSON library is on the distribution's class path and
 * none is needed for writing.
 */
public final class JsonString {

    private JsonString() {
    }

    /** {@code text} quoted, with quotes, backslashes and control characters escaped. */
    public static String quote(String text) {
        StringBuilder b = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
