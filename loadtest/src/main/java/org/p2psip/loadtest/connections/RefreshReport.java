package org.p2psip.loadtest.connections;

import java.util.Locale;
import java.util.Map;

/**
 * The REGISTER refreshes of one {@code bench connections} run.
 *
 * @param sent           REGISTERs sent
 * @param finals         final responses by status code
 * @param unanswered     REGISTERs with no final response by their next turn or the end of the run
 * @param seconds        how long the refreshes were sent for
 * @param latencyMicros  the time from sending to the final response, ascending
 */
record RefreshReport(long sent, Map<Integer, Integer> finals, long unanswered, double seconds, long[] latencyMicros) {

    static final RefreshReport NONE = new RefreshReport(0, Map.of(), 0, 0, new long[0]);

    RefreshReport {
        finals = Map.copyOf(finals);
        latencyMicros = latencyMicros.clone();
    }

    long ok() {
        return finals.entrySet().stream().filter(e -> e.getKey() / 100 == 2).mapToLong(Map.Entry::getValue).sum();
    }

    /** REGISTERs that did not end in a 2xx: other final responses and no response at all. */
    long failed() {
        return sent - ok();
    }

    double rate() {
        return seconds <= 0 ? 0 : sent / seconds;
    }

    /** The q-quantile (nearest rank) of the latencies in ms, NaN if none. */
    double latencyMillis(double q) {
        if (latencyMicros.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(q * latencyMicros.length);
        return latencyMicros[Math.max(0, Math.min(latencyMicros.length - 1, rank - 1))] / 1000.0;
    }

    /** @param label what these REGISTERs were, ten characters wide ("initial:  ", "refreshes:") */
    String text(String label) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%s %,d REGISTERs in %.1f s (%,.0f/s): %,d answered 2xx, %,d failed",
                label, sent, seconds, rate(), ok(), failed()));
        if (failed() > 0) {
            b.append(" (").append(unanswered).append(" unanswered");
            finals.forEach((code, n) -> {
                if (code / 100 != 2) {
                    b.append(", ").append(n).append("x ").append(code);
                }
            });
            b.append(')');
        }
        b.append('\n');
        if (latencyMicros.length > 0) {
            b.append(String.format(Locale.ROOT, "           latency median %.2f ms, p99 %.2f ms, max %.2f ms%n",
                    latencyMillis(0.5), latencyMillis(0.99), latencyMicros[latencyMicros.length - 1] / 1000.0));
        }
        return b.toString();
    }
}
