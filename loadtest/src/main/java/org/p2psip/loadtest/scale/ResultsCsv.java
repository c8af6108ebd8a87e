package org.p2psip.loadtest.scale;

import java.util.List;
import java.util.Locale;

/**
 * {@code results.csv}: one row per cell (RFC 4180: comma-separated, a
 * header row, fields with commas, quotes or line breaks quoted).
 */
public final class ResultsCsv {

    /** The header, in column order. */
    public static final List<String> COLUMNS = List.of("dht", "auth", "policy", "nodes", "scenario", "status",
            "max_rate", "achieved_rate", "success_ratio", "p50_ms", "p90_ms", "p99_ms", "steps", "stopped_by", "load_average",
            "sipp_rate", "sipp_achieved", "sipp_agree", "failed", "dht_operations", "dht_errors", "dht_p50_ms",
            "dht_p99_ms", "dht_local_share", "nodes_cpu_ms_per_1000", "balancer_cpu_ms_per_1000", "generator_cpu_ms_per_1000",
            "projected_rate", "note");

    private ResultsCsv() {
    }

    /** The whole file. */
    public static String render(ScaleResults results) {
        StringBuilder b = new StringBuilder();
        b.append(String.join(",", COLUMNS)).append("\r\n");
        for (ScaleCell c : results.cells()) {
            List<String> row = List.of(c.dht(), c.auth(), c.policy(), Integer.toString(c.nodes()), c.scenario(),
                    c.status().label(),
                    number(c.maxRate(), 0), number(c.achievedRate(), 1), number(c.successRatio(), 5),
                    number(c.p50Millis(), 3), number(c.p90Millis(), 3), number(c.p99Millis(), 3),
                    Integer.toString(c.steps()), c.stoppedBy(), number(c.loadAverage(), 2),
                    c.sipp().map(s -> number(s.rate(), 0)).orElse(""),
                    c.sipp().map(s -> number(s.sippAchieved(), 1)).orElse(""),
                    c.sipp().map(s -> Boolean.toString(s.agree())).orElse(""),
                    Long.toString(c.failed()),
                    c.dhtOperations().map(d -> Long.toString(d.count())).orElse(""),
                    c.dhtOperations().map(d -> Long.toString(d.errors())).orElse(""),
                    c.dhtOperations().map(d -> number(d.p50Millis(), 3)).orElse(""),
                    c.dhtOperations().map(d -> number(d.p99Millis(), 3)).orElse(""),
                    c.dhtOperations().flatMap(DhtOperations::localShare).map(x -> number(x, 4)).orElse(""),
                    c.cpu().map(p -> number(p.nodesMillis(), 1)).orElse(""),
                    c.cpu().map(p -> number(p.balancerMillis(), 1)).orElse(""),
                    c.cpu().map(p -> number(p.generatorMillis(), 1)).orElse(""),
                    c.cpu().map(p -> number(p.projectedRate(c.nodes(), results.cores()), 0)).orElse(""),
                    c.note());
            b.append(String.join(",", row.stream().map(ResultsCsv::field).toList())).append("\r\n");
        }
        return b.toString();
    }

    static String number(double v, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    /** Quotes a field when it holds a comma, a quote or a line break (RFC 4180 §2). */
    static String field(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
