package org.p2psip.servlet.accounting;

/**
 * Text from a SIP message made fit for an accounting column. The database
 * refuses a value longer than its column or, PostgreSQL, one holding a NUL
 * character, and a refused record would hold up the whole batch it is in;
 * so over-long values are cut and control characters (which no URI,
 * Call-ID or address needs, RFC 3261 §25.1) become {@code ?} before the
 * record is made.
 */
final class ColumnText {

    /** Call-ID, From and To URIs, contacts. */
    static final int LONG = 255;
    /** Node addresses: host and port. */
    static final int SHORT = 64;

    private ColumnText() {
    }

    /** {@code text} without control characters and at most {@code max} characters long. */
    static String fit(String text, int max) {
        int length = Math.min(text.length(), max);
        if (length > 0 && Character.isHighSurrogate(text.charAt(length - 1))) {
            // A cut between the halves of a surrogate pair would leave half a character.
            length--;
        }
        StringBuilder b = null;
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c)) {
                if (b == null) {
                    b = new StringBuilder(length).append(text, 0, i);
                }
                b.append('?');
            } else if (b != null) {
                b.append(c);
            }
        }
        return b != null ? b.toString() : text.substring(0, length);
    }

    /** Whether {@code text} is what {@link #fit} would make of it. */
    static boolean fits(String text, int max) {
        return fit(text, max).equals(text);
    }
}
