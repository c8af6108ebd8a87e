package org.p2psip.loadtest.scale;

import java.util.List;
import java.util.stream.Collectors;

import org.p2psip.core.json.JsonNumber;
import org.p2psip.core.json.JsonString;

/**
 * {@code results.json}: the run's conditions and settings, then every cell
 * (RFC 8259). Written by hand: the results are flat and no JSON library is
 * on the distribution's class path.
 */
public final class ResultsJson {

    private ResultsJson() {
    }

    /** The whole document, pretty enough to read and diff. */
    public static String render(ScaleResults r) {
        ScaleSettings s = r.settings();
        StringBuilder b = new StringBuilder(4096);
        b.append("{\n");
        b.append("  \"started_at\": ").append(string(r.startedAt().toString())).append(",\n");
        b.append("  \"seconds\": ").append(number(r.seconds())).append(",\n");
        b.append("  \"cores\": ").append(r.cores()).append(",\n");
        b.append("  \"java\": ").append(string(r.javaVersion())).append(",\n");
        b.append("  \"settings\": {")
                .append("\"dht\": ").append(strings(s.dhts()))
                .append(", \"auth\": ").append(strings(s.auths()))
                .append(", \"policy\": ").append(strings(s.policies()))
                .append(", \"nodes\": ").append(s.nodeCounts().stream().map(String::valueOf)
                        .collect(Collectors.joining(", ", "[", "]")))
                .append(", \"scenario\": ").append(strings(s.scenarios().stream().map(x -> x.label()).toList()))
                .append(", \"replicas\": ").append(s.replicas())
                .append(", \"threads\": ").append(s.threads())
                .append(", \"warmup_s\": ").append(number(s.warmup().toMillis() / 1000.0))
                .append(", \"start_rate\": ").append(number(s.startRate()))
                .append(", \"growth\": ").append(number(s.growth()))
                .append(", \"precision\": ").append(number(s.precision()))
                .append(", \"max_steps\": ").append(s.maxSteps())
                .append(", \"step_s\": ").append(number(s.stepDuration().toMillis() / 1000.0))
                .append(", \"p99_bound_ms\": ").append(number(s.p99BoundMillis()))
                .append(", \"search_budget_s\": ").append(number(s.searchBudget().toMillis() / 1000.0))
                .append(", \"cross_check_sipp\": ").append(s.crossCheckSipp())
                .append("},\n");
        b.append("  \"cells\": [");
        List<ScaleCell> cells = r.cells();
        for (int i = 0; i < cells.size(); i++) {
            b.append(i == 0 ? "\n" : ",\n").append("    ").append(cell(cells.get(i), r.cores()));
        }
        b.append(cells.isEmpty() ? "]\n" : "\n  ]\n");
        b.append("}\n");
        return b.toString();
    }

    static String cell(ScaleCell c, int cores) {
        StringBuilder b = new StringBuilder(400);
        b.append("{\"dht\": ").append(string(c.dht()))
                .append(", \"auth\": ").append(string(c.auth()))
                .append(", \"policy\": ").append(string(c.policy()))
                .append(", \"nodes\": ").append(c.nodes())
                .append(", \"scenario\": ").append(string(c.scenario()))
                .append(", \"status\": ").append(string(c.status().label()))
                .append(", \"max_rate\": ").append(number(c.maxRate()))
                .append(", \"achieved_rate\": ").append(number(c.achievedRate()))
                .append(", \"success_ratio\": ").append(number(c.successRatio()))
                .append(", \"latency_ms\": {\"p50\": ").append(number(c.p50Millis()))
                .append(", \"p90\": ").append(number(c.p90Millis()))
                .append(", \"p99\": ").append(number(c.p99Millis())).append('}')
                .append(", \"steps\": ").append(c.steps())
                .append(", \"stopped_by\": ").append(string(c.stoppedBy()))
                .append(", \"load_average\": ").append(c.loadAverage() < 0 ? "null" : number(c.loadAverage()))
                .append(", \"failed\": ").append(c.failed())
                .append(", \"dht_operations\": ");
        if (c.dhtOperations().isEmpty()) {
            b.append("null");
        } else {
            DhtOperations d = c.dhtOperations().get();
            b.append("{\"count\": ").append(d.count())
                    .append(", \"errors\": ").append(d.errors())
                    .append(", \"p50_ms\": ").append(number(d.p50Millis()))
                    .append(", \"p99_ms\": ").append(number(d.p99Millis()))
                    .append(", \"local\": ").append(d.local())
                    .append(", \"remote\": ").append(d.remote())
                    .append(", \"local_share\": ").append(d.localShare().map(ResultsJson::number).orElse("null"))
                    .append('}');
        }
        b.append(", \"cpu_ms_per_1000\": ");
        if (c.cpu().isEmpty()) {
            b.append("null");
        } else {
            CpuCost p = c.cpu().get();
            b.append("{\"nodes\": ").append(number(p.nodesMillis()))
                    .append(", \"balancer\": ").append(number(p.balancerMillis()))
                    .append(", \"generator\": ").append(number(p.generatorMillis())).append('}');
        }
        b.append(", \"projected_rate\": ")
                .append(c.cpu().map(p -> number(p.projectedRate(c.nodes(), cores))).orElse("null"));
        b.append(", \"note\": ").append(string(c.note()))
                .append(", \"sipp\": ");
        if (c.sipp().isEmpty()) {
            b.append("null");
        } else {
            SippCheck s = c.sipp().get();
            b.append("{\"rate\": ").append(number(s.rate()))
                    .append(", \"our_achieved\": ").append(number(s.ourAchieved()))
                    .append(", \"sipp_achieved\": ").append(number(s.sippAchieved()))
                    .append(", \"sipp_successful\": ").append(s.sippSuccessful())
                    .append(", \"sipp_failed\": ").append(s.sippFailed())
                    .append(", \"agree\": ").append(s.agree())
                    .append(", \"note\": ").append(string(s.note())).append('}');
        }
        return b.append('}').toString();
    }

    private static String strings(List<String> values) {
        return values.stream().map(ResultsJson::string).collect(Collectors.joining(", ", "[", "]"));
    }

    /** A JSON number with four decimals; NaN and infinities, which JSON cannot hold, become null. */
    static String number(double v) {
        return JsonNumber.of(v, 4);
    }

    static String string(String s) {
        return JsonString.quote(s);
    }
}
