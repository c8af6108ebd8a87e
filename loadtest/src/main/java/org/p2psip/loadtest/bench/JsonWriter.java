package org.p2psip.loadtest.bench;

import java.util.Locale;
import java.util.Map;

import org.p2psip.core.json.JsonString;

/**
 * A minimal JSON writer (RFC 8259) for the reports: objects, arrays,
 * strings, numbers, booleans. Enough for one machine-readable line; no
 * JSON library is on the distribution's class path and none is needed.
 */
final class JsonWriter {

    private final StringBuilder out = new StringBuilder(512);
    private boolean needComma;

    JsonWriter beginObject() {
        comma();
        out.append('{');
        needComma = false;
        return this;
    }

    JsonWriter endObject() {
        out.append('}');
        needComma = true;
        return this;
    }

    JsonWriter beginArray(String name) {
        name(name);
        out.append('[');
        needComma = false;
        return this;
    }

    JsonWriter endArray() {
        out.append(']');
        needComma = true;
        return this;
    }

    JsonWriter name(String name) {
        comma();
        string(name);
        out.append(':');
        needComma = false;
        return this;
    }

    JsonWriter field(String name, String value) {
        name(name);
        if (value == null) {
            out.append("null");
        } else {
            string(value);
        }
        needComma = true;
        return this;
    }

    JsonWriter field(String name, long value) {
        name(name);
        out.append(value);
        needComma = true;
        return this;
    }

    JsonWriter field(String name, double value) {
        name(name);
        number(value);
        needComma = true;
        return this;
    }

    JsonWriter field(String name, boolean value) {
        name(name);
        out.append(value);
        needComma = true;
        return this;
    }

    JsonWriter field(String name, Map<String, Long> counts) {
        name(name);
        out.append('{');
        needComma = false;
        for (Map.Entry<String, Long> e : counts.entrySet()) {
            field(e.getKey(), e.getValue().longValue());
        }
        out.append('}');
        needComma = true;
        return this;
    }

    /** Writes raw JSON produced by another writer as the next value. */
    JsonWriter raw(String json) {
        comma();
        out.append(json);
        needComma = true;
        return this;
    }

    @Override
    public String toString() {
        return out.toString();
    }

    private void number(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            out.append("null");
        } else if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            out.append((long) v);
        } else {
            out.append(String.format(Locale.ROOT, "%.3f", v));
        }
    }

    private void comma() {
        if (needComma) {
            out.append(',');
        }
    }

    private void string(String s) {
        out.append(JsonString.quote(s));
    }
}
