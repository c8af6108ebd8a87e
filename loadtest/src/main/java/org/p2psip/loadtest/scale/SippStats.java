package org.p2psip.loadtest.scale;

import java.util.List;
import java.util.Optional;

/**
 * The last row of SIPp's {@code -trace_stat} file: cumulative successful
 * and failed calls and the elapsed time, read by column name.
 *
 * @param elapsedSeconds cumulative elapsed time, 0 when the file did not say
 * @param successful     successful calls
 * @param failed         failed calls
 */
record SippStats(double elapsedSeconds, long successful, long failed) {

    /** Reads the header and the last data row; empty when the file lacks either. */
    static Optional<SippStats> lastRow(List<String> lines) {
        List<String> rows = lines.stream().filter(l -> !l.isBlank()).toList();
        if (rows.size() < 2) {
            return Optional.empty();
        }
        List<String> header = List.of(rows.get(0).split(";", -1));
        String[] last = rows.get(rows.size() - 1).split(";", -1);
        int ok = header.indexOf("SuccessfulCall(C)");
        int failed = header.indexOf("FailedCall(C)");
        int elapsed = header.indexOf("ElapsedTime(C)");
        int start = header.indexOf("StartTime");
        int now = header.indexOf("CurrentTime");
        if (ok < 0 || failed < 0 || ok >= last.length || failed >= last.length) {
            return Optional.empty();
        }
        try {
            // The time stamps end in epoch seconds with microseconds; ElapsedTime(C) has whole seconds only.
            double seconds = start >= 0 && now >= 0 && Math.max(start, now) < last.length
                    ? epoch(last[now]) - epoch(last[start]) : 0;
            if (!(seconds > 0) && elapsed >= 0 && elapsed < last.length) {
                seconds = seconds(last[elapsed]);
            }
            return Optional.of(new SippStats(seconds, Long.parseLong(last[ok].strip()),
                    Long.parseLong(last[failed].strip())));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The epoch seconds that end a SIPp time stamp ("2026-11-21<TAB>19:11:50.655736<TAB>1795288310.655736"); NaN when absent. */
    static double epoch(String stamp) {
        String[] parts = stamp.strip().split("\\s+");
        try {
            return Double.parseDouble(parts[parts.length - 1]);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    /** SIPp's "HH:MM:SS:ffffff" (or "HH:MM:SS.fff") elapsed time in seconds; 0 when unreadable. */
    static double seconds(String text) {
        String[] parts = text.strip().split(":");
        if (parts.length < 3) {
            return 0;
        }
        try {
            double s = Integer.parseInt(parts[0]) * 3600.0 + Integer.parseInt(parts[1]) * 60.0;
            if (parts.length >= 4) {
                s += Integer.parseInt(parts[2]) + Double.parseDouble("0." + parts[3]);
            } else {
                s += Double.parseDouble(parts[2]);
            }
            return s;
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
