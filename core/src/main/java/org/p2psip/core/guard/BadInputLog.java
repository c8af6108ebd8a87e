package org.p2psip.core.guard;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Decides which bad input is worth a log line, and makes that line safe.
 *
 * <p>Bad input is the attacker's to choose, so logging it must cost the
 * attacker more than it costs the disk: at most one line per source per
 * interval (the line says how many were suppressed since the last one),
 * at most a few lines per interval overall, and the attacker's text on one
 * line, escaped and truncated ({@link #excerpt}), never raw and never as a
 * stack trace.
 */
public final class BadInputLog {

    /** Bytes of the offending message a log line shows at most. */
    public static final int EXCERPT_BYTES = 80;

    private final long intervalNanos;
    private final int linesPerInterval;
    private final int maxSources;
    private final ConcurrentHashMap<InetAddress, AtomicLong> lastLogged = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<InetAddress, LongAdder> suppressedBySource = new ConcurrentHashMap<>();
    private final AtomicLong windowStart = new AtomicLong(Long.MIN_VALUE);
    private final LongAdder linesInWindow = new LongAdder();

    /**
     * @param interval         a source gets at most one line per interval
     * @param linesPerInterval all sources together get at most this many lines per interval
     * @param maxSources       sources remembered at most; beyond, a source is treated as just logged
     */
    public BadInputLog(Duration interval, int linesPerInterval, int maxSources) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the log interval must be positive");
        }
        if (linesPerInterval < 1 || maxSources < 1) {
            throw new IllegalArgumentException("lines per interval and sources must be at least 1");
        }
        this.intervalNanos = interval.toNanos();
        this.linesPerInterval = linesPerInterval;
        this.maxSources = maxSources;
    }

    /** One line per source per 10 s, 20 lines per 10 s in all. */
    public static BadInputLog standard() {
        return new BadInputLog(Duration.ofSeconds(10), 20, 10_000);
    }

    /**
     * Whether bad input from {@code source} at {@code nowNanos} gets a line.
     * Returns -1 if not (the input is counted as suppressed), else how many
     * earlier ones from that source were suppressed since its last line.
     */
    public long admit(InetAddress source, long nowNanos) {
        long start = windowStart.get();
        if (start == Long.MIN_VALUE || nowNanos - start >= intervalNanos) {
            if (windowStart.compareAndSet(start, nowNanos)) {
                linesInWindow.reset();
            }
        }
        AtomicLong last = lastLogged.get(source);
        if (last == null) {
            if (lastLogged.size() >= maxSources) {
                lastLogged.clear();
                suppressedBySource.clear();
            }
            last = lastLogged.computeIfAbsent(source, s -> new AtomicLong(nowNanos - intervalNanos));
        }
        long previous = last.get();
        boolean due = nowNanos - previous >= intervalNanos && linesInWindow.sum() < linesPerInterval
                && last.compareAndSet(previous, nowNanos);
        if (!due) {
            suppressedBySource.computeIfAbsent(source, s -> new LongAdder()).increment();
            return -1;
        }
        linesInWindow.increment();
        LongAdder suppressed = suppressedBySource.get(source);
        return suppressed == null ? 0 : suppressed.sumThenReset();
    }

    /** The first bytes of {@code message} as one printable line (see {@link #excerpt(String, int)}). */
    public static String excerpt(byte[] message, int length) {
        int n = Math.min(length, EXCERPT_BYTES);
        String text = new String(message, 0, n, StandardCharsets.ISO_8859_1);
        return escape(text) + (length > n ? "..." : "");
    }

    /** At most {@code max} characters of {@code text} as one printable line. */
    public static String excerpt(String text, int max) {
        if (text == null) {
            return "";
        }
        String cut = text.length() > max ? text.substring(0, max) : text;
        return escape(cut) + (text.length() > max ? "..." : "");
    }

    /**
     * CR, LF and tab as {@code \r \n \t}, a backslash doubled, every other
     * control or non-ASCII character as {@code \xHH}: a log line can then
     * neither be split nor carry terminal escape sequences.
     */
    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\r' -> out.append("\\r");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20 || c >= 0x7f) {
                        out.append(String.format("\\x%02x", (int) c & 0xff));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }
}
