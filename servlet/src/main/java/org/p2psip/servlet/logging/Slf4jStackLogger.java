package org.p2psip.servlet.logging;

import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.p2psip.core.guard.BadInputLog;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import gov.nist.core.StackLogger;

/**
 * JAIN-SIP RI's stack logger, routed to SLF4J so the stack never reaches for
 * log4j 1.x (which the RI's default {@code LogWriter} needs and we do not
 * ship). JAIN-SIP instantiates this class by name from the
 * {@code gov.nist.javax.sip.STACK_LOGGER} property, so it needs a public
 * no-argument constructor.
 *
 * <p>JAIN-SIP guards expensive messages with {@link #isLoggingEnabled(int)},
 * so mapping its levels onto SLF4J's keeps the hot path free of string
 * building when the stack logs at WARN.
 */
public final class Slf4jStackLogger implements StackLogger {

    /** Every JAIN-SIP message goes to this one logger; configure it in logback.xml. */
    public static final String LOGGER_NAME = "gov.nist.javax.sip";

    /** The longest line the stack may write: its messages can carry whole packets. */
    static final int MAX_LINE = 300;
    /** WARN and ERROR lines per {@link #WINDOW_NANOS} at most; bad input must not turn into a disk flood. */
    static final int LINES_PER_WINDOW = 20;
    private static final long WINDOW_NANOS = 10_000_000_000L;

    private final Logger log = LoggerFactory.getLogger(LOGGER_NAME);
    private volatile boolean enabled = true;
    private final AtomicLong windowStart = new AtomicLong(System.nanoTime());
    private final AtomicInteger linesInWindow = new AtomicInteger();
    private final AtomicLong suppressed = new AtomicLong();

    public Slf4jStackLogger() {
    }

    @Override
    public void logStackTrace() {
        if (enabled && log.isTraceEnabled()) {
            log.trace("stack trace", new Throwable("stack trace requested by JAIN-SIP"));
        }
    }

    @Override
    public void logStackTrace(int traceLevel) {
        logStackTrace();
    }

    @Override
    public int getLineCount() {
        return 0;
    }

    @Override
    public void logException(Throwable ex) {
        // Under load these are mostly peers that went away; the trace only helps when debugging.
        if (enabled) {
            if (log.isDebugEnabled()) {
                log.debug("JAIN-SIP exception", ex);
            } else if (log.isWarnEnabled() && due()) {
                log.warn(oneLine("JAIN-SIP exception: " + ex) + suppressedNote());
            }
        }
    }

    @Override
    public void logDebug(String message) {
        if (enabled) {
            log.debug(message);
        }
    }

    @Override
    public void logDebug(String message, Exception ex) {
        if (enabled) {
            log.debug(message, ex);
        }
    }

    @Override
    public void logTrace(String message) {
        if (enabled) {
            log.trace(message);
        }
    }

    @Override
    public void logFatalError(String message) {
        log.error(message);
    }

    @Override
    public void logError(String message) {
        if (enabled && log.isErrorEnabled() && due()) {
            log.error(oneLine(message) + suppressedNote());
        }
    }

    /**
     * Whether another WARN or ERROR line may be written in this window. The
     * RI logs per message at those levels when input is bad (the packet as a
     * decimal array, the parser's complaint), so a flood of garbage would
     * otherwise become a flood of log.
     */
    private boolean due() {
        long now = System.nanoTime();
        long start = windowStart.get();
        if (now - start >= WINDOW_NANOS && windowStart.compareAndSet(start, now)) {
            linesInWindow.set(0);
        }
        if (linesInWindow.incrementAndGet() > LINES_PER_WINDOW) {
            suppressed.incrementAndGet();
            return false;
        }
        return true;
    }

    private String suppressedNote() {
        long n = suppressed.getAndSet(0);
        return n == 0 ? "" : " (" + n + " earlier lines suppressed)";
    }

    /** One printable line of at most {@link #MAX_LINE} characters. */
    static String oneLine(String message) {
        return BadInputLog.excerpt(message, MAX_LINE);
    }

    @Override
    public boolean isLoggingEnabled() {
        return enabled;
    }

    @Override
    public boolean isLoggingEnabled(int logLevel) {
        if (!enabled) {
            return false;
        }
        // JAIN-SIP's levels: FATAL 2, ERROR 4, WARN 8, INFO 16 (= MESSAGES), DEBUG 32, TRACE 64.
        if (logLevel >= TRACE_TRACE) {
            return log.isTraceEnabled();
        }
        if (logLevel >= TRACE_DEBUG) {
            return log.isDebugEnabled();
        }
        if (logLevel >= TRACE_INFO) {
            return log.isInfoEnabled();
        }
        if (logLevel >= TRACE_WARN) {
            return log.isWarnEnabled();
        }
        return logLevel > TRACE_NONE && log.isErrorEnabled();
    }

    @Override
    public void logError(String message, Exception ex) {
        if (!enabled || !log.isErrorEnabled()) {
            return;
        }
        if (log.isDebugEnabled()) {
            log.error(message, ex);
        } else if (due()) {
            log.error(oneLine(message + ": " + ex) + suppressedNote());
        }
    }

    @Override
    public void logWarning(String message) {
        if (!enabled) {
            return;
        }
        if (isTlsSetupNotice(message)) {
            log.debug(message);
        } else if (log.isWarnEnabled() && due()) {
            log.warn(oneLine(message) + suppressedNote());
        }
    }

    /**
     * The RI warns at every start that TLS is not configured. The node
     * listens on UDP and TCP only, so those lines would be noise on every
     * start and are logged at DEBUG.
     */
    static boolean isTlsSetupNotice(String message) {
        if (message == null) {
            return false;
        }
        String m = message.toLowerCase(java.util.Locale.ROOT);
        return m.contains("tls") || m.contains("keystore") || m.contains("truststore");
    }

    @Override
    public void logInfo(String message) {
        if (enabled) {
            log.info(message);
        }
    }

    @Override
    public void disableLogging() {
        enabled = false;
    }

    @Override
    public void enableLogging() {
        enabled = true;
    }

    @Override
    public void setBuildTimeStamp(String buildTimeStamp) {
        log.debug("JAIN-SIP build {}", buildTimeStamp);
    }

    @Override
    public void setStackProperties(Properties stackProperties) {
        // Levels come from the SLF4J backend's configuration, not from stack properties.
    }

    @Override
    public String getLoggerName() {
        return LOGGER_NAME;
    }
}
