package org.p2psip.loadtest.connections;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

import org.p2psip.loadtest.process.TargetSample;

/**
 * What one {@code bench connections} run saw.
 *
 * @param attempted          connections tried (the probe not included)
 * @param opened             of those, how many completed the TCP handshake
 * @param failed             how many did not (refused SYN, no answer within the connect timeout, a local error)
 * @param failures           why they failed, with how often
 * @param refused            opened but closed by the target within {@code refusedWithinMillis}: refused on accept
 * @param firstRefused       the number (from 1, in opening order) of the first refused connection, 0 if none
 * @param firstRefusedSource its source address, null if none
 * @param refusedMaxMillis   the longest time from opening to close among the refused, -1 if none
 * @param closeMillis        for each connection the target closed later than that, the time from its opening until
 *                           the close was seen, ascending
 * @param stillOpen          connections still open when the watch ended
 * @param bytesReceived      bytes the target sent on all connections (a response, an error)
 * @param openSeconds        how long the opening took
 * @param watchSeconds       how long the watch lasted
 * @param refusedWithinMillis the refusal threshold the run used
 * @param probe              the probe connection's fate
 * @param before             the target before the first connection
 * @param allOpen            the target a second after the last connection opened
 * @param openAtSample       connections open when {@code allOpen} was taken
 * @param after              the target after the watch and this tool's connections were closed
 * @param initial            the REGISTERs sent as each connection opened, if any
 * @param refreshes          the REGISTER refreshes sent over the connections once all were open, if any
 */
record ConnectionsReport(int attempted, int opened, int failed, Map<String, Integer> failures, int refused,
                         int firstRefused, String firstRefusedSource, long refusedMaxMillis, long[] closeMillis,
                         int stillOpen, long bytesReceived, double openSeconds, double watchSeconds,
                         long refusedWithinMillis, Probe probe, TargetSample before, TargetSample allOpen,
                         int openAtSample, TargetSample after, RefreshReport initial,
                         RefreshReport refreshes) {

    /** The extra connection from another source opened after the others. */
    enum Probe {
        NONE, ACCEPTED, REFUSED, FAILED
    }

    ConnectionsReport {
        failures = Map.copyOf(failures);
        closeMillis = closeMillis.clone();
        Arrays.sort(closeMillis);
    }

    int closed() {
        return closeMillis.length;
    }

    /** The q-quantile (nearest rank) of the close times, -1 if nothing was closed. */
    long closeQuantileMillis(double q) {
        if (closeMillis.length == 0) {
            return -1;
        }
        int rank = (int) Math.ceil(q * closeMillis.length);
        return closeMillis[Math.max(0, Math.min(closeMillis.length - 1, rank - 1))];
    }

    /** Resident set added per connection open at the all-open sample, in kB; NaN if unknown. */
    double rssPerConnectionKb() {
        if (!before.known() || !allOpen.known() || openAtSample == 0) {
            return Double.NaN;
        }
        return (double) (allOpen.rssKb() - before.rssKb()) / openAtSample;
    }

    String text() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "opened:     %,d of %,d in %.1f s%n", opened, attempted, openSeconds));
        b.append(String.format(Locale.ROOT, "failed:     %,d to open%s%n", failed, failures.isEmpty() ? ""
                : " (" + failureText() + ")"));
        b.append(String.format(Locale.ROOT, "refused:    %,d closed by the target within %,d ms of opening%s%n",
                refused, refusedWithinMillis, firstRefused == 0 ? ""
                        : String.format(Locale.ROOT,
                                " (first: #%,d from %s; the slowest closed %,d ms after opening)",
                                firstRefused, firstRefusedSource, refusedMaxMillis)));
        if (closed() == 0) {
            b.append("closed:     0 by the target later\n");
        } else {
            b.append(String.format(Locale.ROOT,
                    "closed:     %,d by the target later, after min %s, median %s, p90 %s, max %s%n", closed(),
                    seconds(closeMillis[0]), seconds(closeQuantileMillis(0.5)), seconds(closeQuantileMillis(0.9)),
                    seconds(closeMillis[closeMillis.length - 1])));
        }
        b.append(String.format(Locale.ROOT, "still open: %,d after watching %.1f s%n", stillOpen, watchSeconds));
        if (bytesReceived > 0) {
            b.append(String.format(Locale.ROOT, "received:   %,d bytes from the target%n", bytesReceived));
        }
        if (initial.sent() > 0) {
            b.append(initial.text("initial:  "));
        }
        if (refreshes.sent() > 0) {
            b.append(refreshes.text("refreshes:"));
        }
        if (probe != Probe.NONE) {
            b.append("probe:      ").append(probe.name().toLowerCase(Locale.ROOT)).append('\n');
        }
        if (before.known()) {
            b.append(String.format(Locale.ROOT,
                    "target RSS: %,d kB before, %,d kB with %,d open, %,d kB after; %s kB per open connection%n",
                    before.rssKb(), allOpen.rssKb(), openAtSample, after.rssKb(),
                    Double.isNaN(rssPerConnectionKb()) ? "?"
                            : String.format(Locale.ROOT, "%.2f", rssPerConnectionKb())));
            b.append(String.format(Locale.ROOT, "target threads: %d before, %d with all open, %d after%n",
                    before.threads(), allOpen.threads(), after.threads()));
        }
        return b.toString();
    }

    private String failureText() {
        StringBuilder b = new StringBuilder();
        failures.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(3)
                .forEach(e -> b.append(b.length() == 0 ? "" : "; ").append(e.getValue()).append("x ")
                        .append(e.getKey()));
        return b.toString();
    }

    private static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.2f s", millis / 1000.0);
    }
}
