package org.p2psip.servlet.accounting;

import java.util.List;

/**
 * Lines of comma-separated values as RFC 4180 defines them, for people who
 * open accounting in a spreadsheet: fields separated by commas, lines ended
 * by CRLF, and a field that holds a comma, a double quote, CR or LF
 * enclosed in double quotes, with each of its double quotes doubled
 * (§2, rules 4 to 7).
 *
 * <p>One addition: a text field that starts with {@code =}, {@code +},
 * {@code -}, {@code @}, a tab or CR gets a leading {@code '}. Spreadsheets
 * run such a cell as a formula, and Call-IDs and URIs come from whoever
 * sent the INVITE (the "CSV injection" OWASP describes).
 */
public final class Rfc4180Csv {

    private Rfc4180Csv() {
    }

    /** One line of {@code fields} (null is an empty field), CRLF included. */
    public static String line(List<String> fields) {
        StringBuilder b = new StringBuilder(32 * fields.size());
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            field(b, fields.get(i));
        }
        return b.append("\r\n").toString();
    }

    /** {@code text} kept from being read as a formula: a leading {@code '} when it starts like one. */
    public static String inert(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        char first = text.charAt(0);
        return first == '=' || first == '+' || first == '-' || first == '@' || first == '\t' || first == '\r'
                ? "'" + text : text;
    }

    private static void field(StringBuilder b, String value) {
        if (value == null) {
            return;
        }
        boolean quote = false;
        for (int i = 0; i < value.length() && !quote; i++) {
            char c = value.charAt(i);
            quote = c == ',' || c == '"' || c == '\r' || c == '\n';
        }
        if (!quote) {
            b.append(value);
            return;
        }
        b.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"') {
                b.append('"');
            }
            b.append(c);
        }
        b.append('"');
    }
}
