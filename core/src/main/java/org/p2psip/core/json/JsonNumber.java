package org.p2psip.core.json;

import java.util.Locale;

/**
 * A JSON number (RFC 8259 §6) for the documents the commands and pages
 * write by hand. JSON has no NaN or infinity, so those become
 * {@code null}, which readers take as "no value" (a gap in a chart, an
 * empty cell).
 */
public final class JsonNumber {

    private JsonNumber() {
    }

    /** {@code v} as a whole number when it is one, else with {@code decimals} places; null when not finite. */
    public static String of(double v, int decimals) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "null";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
