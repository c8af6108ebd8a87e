package org.p2psip.balancer;

import java.net.InetSocketAddress;

import org.p2psip.core.guard.BadInputLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the balancer's log lines about bad input through a {@link
 * BadInputLog}: at most one line per source per interval, the reason and
 * the first bytes of the offending message escaped onto that one line,
 * never a stack trace or a dump. Everything is counted in {@link
 * BalancerCounters} whether it is logged or not.
 */
public final class BadInputReporter {

    private static final Logger LOG = LoggerFactory.getLogger("org.p2psip.lb.input");
    private static final int REASON_CHARS = 160;

    private final BadInputLog log;

    public BadInputReporter(BadInputLog log) {
        this.log = log;
    }

    /** A reporter with {@link BadInputLog#standard()}'s limits. */
    public static BadInputReporter standard() {
        return new BadInputReporter(BadInputLog.standard());
    }

    /** Reports {@code why} about input from {@code source}, with an excerpt of {@code bytes} if given. */
    public void report(InetSocketAddress source, String why, byte[] bytes, int length) {
        if (source == null || !LOG.isWarnEnabled()) {
            return;
        }
        long suppressed = log.admit(source.getAddress(), System.nanoTime());
        if (suppressed < 0) {
            return;
        }
        String excerpt = bytes == null ? "" : ": " + BadInputLog.excerpt(bytes, length);
        LOG.warn("bad input from {}: {}{}{}", source.getAddress().getHostAddress(),
                BadInputLog.excerpt(why, REASON_CHARS),
                suppressed > 0 ? " (" + suppressed + " more from it not logged)" : "", excerpt);
    }

    /** Reports something about a source that has no message to show (a connection closed, a ban). */
    public void report(InetSocketAddress source, String why) {
        report(source, why, null, 0);
    }
}
