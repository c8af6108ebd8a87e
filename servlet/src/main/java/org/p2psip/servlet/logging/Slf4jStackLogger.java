package org.p2psip.servlet.logging;

import java.util.Properties;

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

    private final Logger log = LoggerFactory.getLogger(LOGGER_NAME);
    private volatile boolean enabled = true;

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
            } else {
                log.warn("JAIN-SIP exception: {}", ex.toString());
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
        if (enabled) {
            log.error(message);
        }
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
        if (enabled) {
            if (log.isDebugEnabled()) {
                log.error(message, ex);
            } else {
                log.error("{}: {}", message, String.valueOf(ex));
            }
        }
    }

    @Override
    public void logWarning(String message) {
        if (!enabled) {
            return;
        }
        if (isTlsSetupNotice(message)) {
            log.debug(message);
        } else {
            log.warn(message);
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
