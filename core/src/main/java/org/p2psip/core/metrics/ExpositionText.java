package org.p2psip.core.metrics;

import java.math.BigDecimal;

/**
 * The pieces of the Prometheus text exposition format 0.0.4 every
 * renderer here shares: a family's {@code # HELP} and {@code # TYPE} lines,
 * durations written as exact decimal seconds, and label values escaped.
 */
public final class ExpositionText {

    private ExpositionText() {
    }

    /** Appends the {@code # HELP} and {@code # TYPE} lines that open family {@code name}. */
    public static void family(StringBuilder b, String name, String type, String help) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    /** Nanoseconds as plain decimal seconds, never through a binary fraction: 500000 is "0.0005", 1e9 is "1". */
    public static String seconds(long nanos) {
        return BigDecimal.valueOf(nanos, 9).stripTrailingZeros().toPlainString();
    }

    /** A label value escaped as the text format asks: backslash, double quote and newline. */
    public static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
