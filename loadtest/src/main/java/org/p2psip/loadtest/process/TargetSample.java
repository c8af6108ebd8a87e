package org.p2psip.loadtest.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The target process's resident set and thread count from
 * {@code /proc/PID/status}; -1 for what could not be read.
 */
public record TargetSample(long rssKb, long threads) {

    public static final TargetSample NONE = new TargetSample(-1, -1);

    /** A sample of process {@code pid} now; {@link #NONE} for no process (pid 0 or less). */
    public static TargetSample of(long pid) {
        if (pid <= 0) {
            return NONE;
        }
        long rss = -1;
        long threads = -1;
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = Long.parseLong(line.replaceAll("[^0-9]", ""));
                } else if (line.startsWith("Threads:")) {
                    threads = Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            return NONE;
        }
        return new TargetSample(rss, threads);
    }

    public boolean known() {
        return rssKb >= 0;
    }
}
