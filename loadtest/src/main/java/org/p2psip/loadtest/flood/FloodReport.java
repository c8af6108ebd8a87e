package org.p2psip.loadtest.flood;

import java.util.Arrays;
import java.util.Locale;

/**
 * What one flood run measured: how much garbage went out, and how the
 * probe client on another source fared (the share of its requests answered
 * within a second is Kamailio's measure for the same test).
 *
 * @param garbageSent     datagrams the flooder sent
 * @param seconds         how long the flood lasted
 * @param probesSent      valid requests the probe client sent
 * @param latenciesMillis answer latency of each probe that was answered, in send order; unanswered ones absent
 * @param rssBeforeKb     the target's resident set before the flood, -1 if not watched
 * @param rssAfterKb      the same after it (after a settling pause)
 * @param logBytesGrown   how much the target's log file grew, -1 if not watched
 */
public record FloodReport(long garbageSent, double seconds, int probesSent, long[] latenciesMillis,
                          long rssBeforeKb, long rssAfterKb, long logBytesGrown) {

    public FloodReport {
        latenciesMillis = latenciesMillis.clone();
    }

    public double garbageRate() {
        return seconds <= 0 ? 0 : garbageSent / seconds;
    }

    /** Probes answered within {@code limitMillis}, as a share of those sent. */
    public double answeredWithin(long limitMillis) {
        if (probesSent == 0) {
            return 0;
        }
        long n = Arrays.stream(latenciesMillis).filter(l -> l <= limitMillis).count();
        return (double) n / probesSent;
    }

    public long medianMillis() {
        if (latenciesMillis.length == 0) {
            return -1;
        }
        long[] sorted = latenciesMillis.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    String text() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "flood: %,d datagrams in %.1f s (%,.0f/s)%n", garbageSent, seconds,
                garbageRate()));
        b.append(String.format(Locale.ROOT, "probe:   %d sent, %d answered, %.1f %% within 1 s, median %d ms%n",
                probesSent, latenciesMillis.length, 100 * answeredWithin(1_000), medianMillis()));
        if (rssBeforeKb >= 0) {
            b.append(String.format(Locale.ROOT, "target RSS: %,d kB before, %,d kB after (%.2fx)%n", rssBeforeKb,
                    rssAfterKb, rssBeforeKb == 0 ? 0 : (double) rssAfterKb / rssBeforeKb));
        }
        if (logBytesGrown >= 0) {
            b.append(String.format(Locale.ROOT, "target log grew by %,d bytes%n", logBytesGrown));
        }
        return b.toString();
    }
}
