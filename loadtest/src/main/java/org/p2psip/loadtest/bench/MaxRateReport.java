package org.p2psip.loadtest.bench;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The outcome of a max-rate search: every step with its verdict, and the
 * highest rate that held.
 *
 * @param steps     the steps in the order run
 * @param bestRate  highest offered rate that held; 0 when none did
 * @param best      the report of that step, or null
 * @param stoppedBy why the search ended: "converged", "max-steps", "count" or "duration" (budget spent)
 */
public record MaxRateReport(List<SearchStep> steps, double bestRate, LoadReport best, String stoppedBy) {

    /**
     * One step of the search.
     *
     * @param report what the step measured
     * @param held   whether it met the criteria
     */
    public record SearchStep(LoadReport report, boolean held) {
    }

    public MaxRateReport {
        steps = List.copyOf(steps);
    }

    /** The one-line summary. */
    public String summary() {
        String path = steps.stream().map(s -> String.format(Locale.ROOT, "%.0f %s", s.report().offeredRate(),
                s.held() ? "ok" : "fail")).collect(Collectors.joining(", "));
        if (best == null) {
            return "max rate: no step held (" + path + ")";
        }
        return String.format(Locale.ROOT, "max rate %.0f/s (%s %s %s): %.1f/s achieved, %.3f%% ok, latency ms p50 %.2f "
                        + "p99 %.2f max %.2f; steps: %s; stopped: %s",
                bestRate, best.scenario(), best.transport(), best.target(), best.achievedRate(),
                100 * best.successRatio(), best.p50Millis(), best.p99Millis(), best.maxMillis(), path, stoppedBy);
    }

    /** One JSON object. */
    public String toJson() {
        JsonWriter w = new JsonWriter().beginObject().field("max_rate", bestRate).field("stopped_by", stoppedBy);
        w.name("best");
        if (best == null) {
            w.raw("null");
        } else {
            w.raw(best.toJson());
        }
        w.beginArray("steps");
        for (SearchStep s : steps) {
            JsonWriter step = new JsonWriter().beginObject().field("held", s.held()).name("report").raw(s.report().toJson())
                    .endObject();
            w.raw(step.toString());
        }
        return w.endArray().endObject().toString();
    }
}
