package org.p2psip.servlet.status;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

import org.p2psip.core.json.JsonString;

/**
 * One reading of a status page: what kind of process it is, a few named
 * facts, the members table and the charts. Both a node's page and a
 * balancer's have this shape, so one script draws either.
 *
 * @param kind    {@code node} or {@code balancer}
 * @param title   the page's heading
 * @param facts   name and value pairs, in the order shown
 * @param columns the members table's column headings
 * @param members its rows, each as many cells as there are columns
 * @param charts  the charts, in the order shown
 */
public record StatusView(String kind, String title, List<Fact> facts, List<String> columns,
                         List<List<String>> members, List<ChartHistory> charts) {

    /** One named fact: "backend" = "chord". */
    public record Fact(String name, String value) {
        public Fact {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
        }
    }

    public StatusView {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(title, "title");
        facts = List.copyOf(facts);
        columns = List.copyOf(columns);
        members = members.stream().map(List::copyOf).toList();
        charts = List.copyOf(charts);
        for (List<String> row : members) {
            if (row.size() != columns.size()) {
                throw new IllegalArgumentException("a member row has " + row.size() + " cells for " + columns.size()
                        + " columns: " + row);
            }
        }
    }

    /**
     * {@code {"kind":…,"title":…,"facts":[{"name":…,"value":…}…],
     * "members":{"columns":[…],"rows":[[…]…]},"charts":[…]}}.
     */
    public String json() {
        StringBuilder b = new StringBuilder(4_096);
        b.append("{\"kind\":").append(JsonString.quote(kind)).append(",\"title\":").append(JsonString.quote(title))
                .append(",\"facts\":[");
        for (int i = 0; i < facts.size(); i++) {
            Fact f = facts.get(i);
            b.append(i == 0 ? "" : ",").append("{\"name\":").append(JsonString.quote(f.name()))
                    .append(",\"value\":").append(JsonString.quote(f.value())).append('}');
        }
        b.append("],\"members\":{\"columns\":");
        strings(b, columns);
        b.append(",\"rows\":[");
        for (int i = 0; i < members.size(); i++) {
            b.append(i == 0 ? "" : ",");
            strings(b, members.get(i));
        }
        b.append("]},\"charts\":[");
        for (int i = 0; i < charts.size(); i++) {
            b.append(i == 0 ? "" : ",").append(charts.get(i).json());
        }
        return b.append("]}").toString();
    }

    /** A running time for a person: "42 s", "3 min 12 s", "5 h 07 min", "2 d 4 h". */
    public static String uptime(long seconds) {
        long s = Math.max(0, seconds);
        if (s < 60) {
            return s + " s";
        }
        if (s < 3_600) {
            return s / 60 + " min " + s % 60 + " s";
        }
        if (s < 86_400) {
            return s / 3_600 + " h " + String.format(Locale.ROOT, "%02d", s % 3_600 / 60) + " min";
        }
        return s / 86_400 + " d " + s % 86_400 / 3_600 + " h";
    }

    /** A share of the key space as a percentage with one decimal, or "-" where the backend cannot tell. */
    public static String share(double share) {
        return Double.isNaN(share) ? "-" : String.format(Locale.ROOT, "%.1f %%", 100 * share);
    }

    private static void strings(StringBuilder b, List<String> items) {
        b.append('[');
        for (int i = 0; i < items.size(); i++) {
            b.append(i == 0 ? "" : ",").append(JsonString.quote(items.get(i)));
        }
        b.append(']');
    }
}
