package org.p2psip.loadtest.scale;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code results.md}: the P2PSIP paper's Table 2 turned to node counts —
 * one table per scenario, a row per backend, a column per node count, each
 * cell the highest sustainable rate per second. Beyond one node a cell also
 * shows the share of the same backend's one-node rate it keeps, the
 * figure the paper's OpenChord lost (26 %) and the issue sets a floor on.
 */
public final class ResultsTable {

    private ResultsTable() {
    }

    /** The whole Markdown document. */
    public static String render(ScaleResults r) {
        StringBuilder b = new StringBuilder(2048);
        b.append("# p2psip scale benchmark\n\n");
        ScaleSettings s = r.settings();
        b.append(String.format(Locale.ROOT, "Started %s, %.0f s, %d cores, Java %s. Each cell: the highest rate at "
                        + "which at least 99.9 %% of flows succeeded with p99 latency within %.0f ms "
                        + "(max-rate search from %.0f/s, x%.1f, %d s steps, balancer in front of the nodes, UDP, "
                        + "replicas %d).\n\n",
                r.startedAt(), r.seconds(), r.cores(), r.javaVersion(), s.p99BoundMillis(), s.startRate(),
                s.growth(), s.stepDuration().toSeconds(), s.replicas()));
        for (String scenario : r.scenarios()) {
            b.append(table(r, scenario)).append('\n');
        }
        b.append(latencyTable(r)).append('\n');
        b.append(costTable(r)).append('\n');
        List<String> notes = notes(r);
        if (!notes.isEmpty()) {
            b.append("Notes:\n\n");
            notes.forEach(n -> b.append("- ").append(n).append('\n'));
        }
        return b.toString();
    }

    /** One scenario's table: rows backends, columns node counts. */
    public static String table(ScaleResults r, String scenario) {
        List<Integer> counts = r.nodeCounts();
        StringBuilder b = new StringBuilder();
        b.append("### ").append(scenario).append(" — ").append(unit(scenario)).append("\n\n");
        b.append("| backend |");
        counts.forEach(n -> b.append(' ').append(n).append(n == 1 ? " node |" : " nodes |"));
        b.append("\n| --- |");
        counts.forEach(n -> b.append(" ---: |"));
        b.append('\n');
        for (String dht : r.rows()) {
            b.append("| ").append(dht).append(" |");
            Optional<ScaleCell> one = r.cell(dht, 1, scenario).filter(ScaleCell::measured);
            for (int n : counts) {
                b.append(' ').append(cellText(r.cell(dht, n, scenario), n == 1 ? Optional.empty() : one))
                        .append(" |");
            }
            b.append('\n');
        }
        return b.toString();
    }

    /** Latency at each cell's max rate: p50 / p90 / p99 in milliseconds. */
    public static String latencyTable(ScaleResults r) {
        StringBuilder b = new StringBuilder();
        b.append("### latency at the max rate — p50 / p90 / p99 ms\n\n");
        b.append("Requests as the generator saw them, and the nodes' DHT operations in the same step "
                + "(every node's get, put, remove and placement, from their `--metrics`). DHT local: the share of "
                + "gets, puts and removes started on the node that owned the key.\n\n");
        b.append("| scenario | backend | nodes | max rate/s | failed | p50 | p90 | p99 | DHT ops | DHT failed "
                + "| DHT p50 | DHT p99 | DHT local |\n");
        b.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (ScaleCell c : r.cells()) {
            if (!c.measured()) {
                continue;
            }
            String dht = c.dhtOperations().map(d -> String.format(Locale.ROOT, "%,d | %,d | %.2f | %.2f | %s",
                    d.count(), d.errors(), d.p50Millis(), d.p99Millis(),
                    d.localShare().map(x -> String.format(Locale.ROOT, "%.1f %%", 100 * x)).orElse("—")))
                    .orElse("— | — | — | — | —");
            b.append(String.format(Locale.ROOT, "| %s | %s | %d | %s | %,d | %.2f | %.2f | %.2f | %s |\n",
                    c.scenario(), c.row(), c.nodes(), grouped(c.maxRate()), c.failed(), c.p50Millis(), c.p90Millis(),
                    c.p99Millis(), dht));
        }
        return b.toString();
    }

    /**
     * CPU per 1,000 requests at each cell's max rate, by part, beside the
     * measured rate, and the projection the node figure gives for one node
     * per dedicated host (labelled as such: it is arithmetic, not a run).
     */
    public static String costTable(ScaleResults r) {
        StringBuilder b = new StringBuilder();
        b.append("### CPU cost at the max rate — ms per 1,000 flows\n\n");
        b.append(String.format(Locale.ROOT, "Measured: the CPU time every node process together, the balancer and "
                + "the generator used in the step at the max rate (from /proc), per 1,000 flows sent (REGISTERs; "
                + "call attempts in the call scenario). "
                + "Projected: the rate those nodes would carry with one node per dedicated host of %d cores, if a "
                + "flow cost the nodes what it cost here and the balancer and network kept up — arithmetic "
                + "from the node figure, not a measurement.\n\n", r.cores()));
        b.append("| scenario | backend | nodes | measured rate/s | nodes CPU | balancer CPU | generator CPU "
                + "| projected rate/s |\n");
        b.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (ScaleCell c : r.cells()) {
            if (!c.measured()) {
                continue;
            }
            String cost = c.cpu().map(p -> String.format(Locale.ROOT, "%,.0f | %,.0f | %,.0f | %s", p.nodesMillis(),
                    p.balancerMillis(), p.generatorMillis(), grouped(p.projectedRate(c.nodes(), r.cores()))))
                    .orElse("— | — | — | —");
            b.append(String.format(Locale.ROOT, "| %s | %s | %d | %s | %s |\n", c.scenario(), c.row(), c.nodes(),
                    grouped(c.maxRate()), cost));
        }
        return b.toString();
    }

    static String cellText(Optional<ScaleCell> cell, Optional<ScaleCell> oneNode) {
        if (cell.isEmpty()) {
            return "";
        }
        ScaleCell c = cell.get();
        return switch (c.status()) {
            case SKIPPED -> "—";
            case FAILED -> "failed";
            case OK -> {
                if (c.maxRate() <= 0) {
                    yield "none held";
                }
                String text = grouped(c.maxRate());
                if (oneNode.isPresent()) {
                    text += String.format(Locale.ROOT, " (%.0f %%)", 100 * c.maxRate() / oneNode.get().maxRate());
                }
                yield text;
            }
        };
    }

    static List<String> notes(ScaleResults r) {
        List<String> notes = new ArrayList<>();
        for (ScaleCell c : r.cells()) {
            String where = c.row() + " x" + c.nodes() + " " + c.scenario();
            if (!c.note().isEmpty()) {
                notes.add(where + ": " + c.note());
            }
            c.sipp().ifPresent(s -> notes.add(where + ": " + sippText(s)));
        }
        return notes;
    }

    static String sippText(SippCheck s) {
        if (!s.note().isEmpty() && s.sippSuccessful() == 0) {
            return "SIPp cross-check not run: " + s.note();
        }
        return String.format(Locale.ROOT, "SIPp cross-check at %s/s: SIPp %.1f/s (%d ok, %d failed), ours %.1f/s, "
                        + "%+.1f %% — %s", grouped(s.rate()), s.sippAchieved(), s.sippSuccessful(), s.sippFailed(),
                s.ourAchieved(), 100 * s.difference(), s.agree() ? "agree within 10 %" : "DISAGREE (over 10 %)")
                + (s.note().isEmpty() ? "" : "; " + s.note());
    }

    private static String unit(String scenario) {
        return switch (scenario) {
            case "register", "reregister" -> "REGISTER/s";
            case "call" -> "call attempts/s";
            case "message" -> "MESSAGE/s";
            default -> "per second";
        };
    }

    /** A rate rounded to a whole number with thousands separators, as the paper prints them. */
    static String grouped(double rate) {
        return String.format(Locale.ROOT, "%,d", Math.round(rate));
    }
}
