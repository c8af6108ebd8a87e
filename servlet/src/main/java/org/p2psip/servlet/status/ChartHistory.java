package org.p2psip.servlet.status;

import java.util.List;
import java.util.Objects;

import org.p2psip.core.json.JsonNumber;
import org.p2psip.core.json.JsonString;

/**
 * The recent past of one status-page chart: a fixed set of series sampled
 * together, the last {@code capacity} samples kept in a ring so the page
 * shows the last minutes the moment it is opened, whatever the process did
 * before. A value may be NaN where a series has nothing to show for a
 * sample (no REGISTER answered in that second has no latency); the page
 * leaves a gap there.
 */
public final class ChartHistory {

    private final String title;
    private final String unit;
    private final List<String> series;
    private final long[] times;
    private final double[][] values;
    private int next;
    private int size;

    /**
     * @param title    what the chart shows, for a person
     * @param unit     the unit of every series' values ("/s", "ms")
     * @param series   the series' names, in the order {@link #add} takes their values
     * @param capacity samples kept; older ones are overwritten
     */
    public ChartHistory(String title, String unit, List<String> series, int capacity) {
        this.title = Objects.requireNonNull(title, "title");
        this.unit = Objects.requireNonNull(unit, "unit");
        this.series = List.copyOf(series);
        if (this.series.isEmpty()) {
            throw new IllegalArgumentException("a chart needs at least one series");
        }
        if (capacity < 2) {
            throw new IllegalArgumentException("a chart keeps at least two samples, not " + capacity);
        }
        this.times = new long[capacity];
        this.values = new double[capacity][];
    }

    public String title() {
        return title;
    }

    public List<String> series() {
        return series;
    }

    /** One sample taken at {@code atMillis} (epoch milliseconds): a value per series, in their order. */
    public synchronized void add(long atMillis, double... sample) {
        if (sample.length != series.size()) {
            throw new IllegalArgumentException(title + " has " + series.size() + " series, not " + sample.length);
        }
        times[next] = atMillis;
        values[next] = sample.clone();
        next = (next + 1) % times.length;
        size = Math.min(size + 1, times.length);
    }

    /** How many samples it holds now. */
    public synchronized int size() {
        return size;
    }

    /**
     * {@code {"title":…,"unit":…,"series":[…],"points":[[t,v1,v2…],…]}},
     * oldest point first; NaN and infinities are {@code null}.
     */
    public synchronized String json() {
        StringBuilder b = new StringBuilder(64 + size * 16 * (series.size() + 1));
        b.append("{\"title\":").append(JsonString.quote(title)).append(",\"unit\":").append(JsonString.quote(unit))
                .append(",\"series\":[");
        for (int i = 0; i < series.size(); i++) {
            b.append(i == 0 ? "" : ",").append(JsonString.quote(series.get(i)));
        }
        b.append("],\"points\":[");
        int oldest = (next - size + times.length) % times.length;
        for (int k = 0; k < size; k++) {
            int at = (oldest + k) % times.length;
            b.append(k == 0 ? "[" : ",[").append(times[at]);
            for (double v : values[at]) {
                b.append(',').append(number(v));
            }
            b.append(']');
        }
        return b.append("]}").toString();
    }

    /** A JSON number with three decimals, or null where there is none. */
    static String number(double v) {
        return JsonNumber.of(v, 3);
    }
}
