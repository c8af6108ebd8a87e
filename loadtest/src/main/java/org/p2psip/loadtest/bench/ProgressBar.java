package org.p2psip.loadtest.bench;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * A one-line progress display redrawn in place with a carriage return.
 * Only for a terminal: {@link #forConsole} gives {@link Progress#NONE}
 * when there is none (output piped or redirected), so logs and scripts
 * never see it.
 */
final class ProgressBar implements Progress {

    private static final int WIDTH = 24;

    private final PrintWriter out;
    private int lastLength;

    ProgressBar(PrintWriter out) {
        this.out = out;
    }

    /** A bar on the console, or nothing when there is no console. */
    static Progress forConsole() {
        java.io.Console console = System.console();
        return console == null ? Progress.NONE : new ProgressBar(console.writer());
    }

    @Override
    public void update(String phase, long total, LiveCounters c, double seconds) {
        long done = c.succeeded() + c.failed();
        double share = total == 0 ? 1 : Math.min(1, (double) done / total);
        int filled = (int) Math.round(share * WIDTH);
        String line = String.format(Locale.ROOT, "%-10s [%s%s] %3.0f%% %,d/%,d ok %,d fail %,d %.1fs", phase,
                "#".repeat(filled), "-".repeat(WIDTH - filled), 100 * share, done, total, c.succeeded(), c.failed(),
                seconds);
        out.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
        out.flush();
        lastLength = line.length();
    }

    /** Wipes the bar so that the summary starts on a clean line. */
    void clear() {
        if (lastLength > 0) {
            out.print("\r" + " ".repeat(lastLength) + "\r");
            out.flush();
            lastLength = 0;
        }
    }
}
