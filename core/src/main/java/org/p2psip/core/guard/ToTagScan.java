package org.p2psip.core.guard;

/**
 * Whether a raw SIP request belongs to a dialog, read from its bytes before
 * any parser sees them: its To header field carries a {@code tag}
 * parameter (RFC 3261 §12.2: a request within a dialog has the remote tag
 * in To; §8.1.1.2: a request outside one has none).
 *
 * <p>The To header is found by its full or compact name ({@code To},
 * {@code t}, any case, RFC 3261 §7.3.3) in the header section only; its
 * value runs over folded lines. A {@code tag} counts only as a header
 * parameter: outside angle brackets (a URI parameter of that name in a
 * name-addr is not one) and outside a quoted display name. What does not
 * scan (no To, a malformed value) counts as outside a dialog, the side on
 * which an overloaded node refuses.
 */
public final class ToTagScan {

    private ToTagScan() {
    }

    /** Whether {@code data[0..length)} has a To header field with a tag parameter. */
    public static boolean carriesToTag(byte[] data, int length) {
        int end = Math.min(length, data.length);
        for (int i = 0; i < end - 1; i++) {
            if (data[i] != '\n') {
                continue;
            }
            int line = i + 1;
            if (data[line] == '\r' || data[line] == '\n') {
                return false;
            }
            int value = valueStart(data, line, end);
            if (value >= 0) {
                return hasTagParameter(data, value, end);
            }
        }
        return false;
    }

    /** Where the value of a To header starting at {@code line} begins, or -1 when the line is another header. */
    private static int valueStart(byte[] data, int line, int end) {
        int i = line;
        if (i < end && (data[i] == 't' || data[i] == 'T')) {
            i++;
            if (i < end && (data[i] == 'o' || data[i] == 'O')) {
                i++;
            }
        } else {
            return -1;
        }
        while (i < end && (data[i] == ' ' || data[i] == '\t')) {
            i++;
        }
        return i < end && data[i] == ':' ? i + 1 : -1;
    }

    /** Scans a header value, folded lines included, for a {@code ;tag=} outside brackets and quotes. */
    private static boolean hasTagParameter(byte[] data, int from, int end) {
        boolean quoted = false;
        boolean bracketed = false;
        for (int i = from; i < end; i++) {
            byte b = data[i];
            if (b == '\r' || b == '\n') {
                int next = b == '\r' && i + 1 < end && data[i + 1] == '\n' ? i + 2 : i + 1;
                if (next < end && (data[next] == ' ' || data[next] == '\t')) {
                    i = next;
                    continue;
                }
                return false;
            }
            if (quoted) {
                if (b == '\\') {
                    i++;
                } else if (b == '"') {
                    quoted = false;
                }
            } else if (b == '"') {
                quoted = true;
            } else if (b == '<') {
                bracketed = true;
            } else if (b == '>') {
                bracketed = false;
            } else if (b == ';' && !bracketed && isTagName(data, i + 1, end)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code tag}, any case, then optional blanks and {@code =}, start at or after blanks from {@code i}. */
    private static boolean isTagName(byte[] data, int i, int end) {
        while (i < end && (data[i] == ' ' || data[i] == '\t')) {
            i++;
        }
        if (end - i < 3 || (data[i] | 0x20) != 't' || (data[i + 1] | 0x20) != 'a' || (data[i + 2] | 0x20) != 'g') {
            return false;
        }
        i += 3;
        while (i < end && (data[i] == ' ' || data[i] == '\t')) {
            i++;
        }
        return i < end && data[i] == '=';
    }
}
