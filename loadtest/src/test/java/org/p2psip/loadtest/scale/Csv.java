package org.p2psip.loadtest.scale;

import java.util.ArrayList;
import java.util.List;

/** An RFC 4180 reader for the tests: quoted fields, doubled quotes, CRLF records. */
final class Csv {

    private Csv() {
    }

    static List<List<String>> parse(String text) {
        List<List<String>> rows = new ArrayList<>();
        List<String> row = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
                    field.append('"');
                    i += 2;
                    continue;
                }
                if (c == '"') {
                    quoted = false;
                } else {
                    field.append(c);
                }
            } else if (c == '"') {
                if (field.length() > 0) {
                    throw new IllegalArgumentException("quote inside an unquoted field at " + i);
                }
                quoted = true;
            } else if (c == ',') {
                row.add(field.toString());
                field.setLength(0);
            } else if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
                row.add(field.toString());
                field.setLength(0);
                rows.add(row);
                row = new ArrayList<>();
                i++;
            } else if (c == '\n' || c == '\r') {
                throw new IllegalArgumentException("bare line break at " + i);
            } else {
                field.append(c);
            }
            i++;
        }
        if (quoted) {
            throw new IllegalArgumentException("unterminated quoted field");
        }
        if (field.length() > 0 || !row.isEmpty()) {
            throw new IllegalArgumentException("last record lacks its CRLF");
        }
        return rows;
    }
}
