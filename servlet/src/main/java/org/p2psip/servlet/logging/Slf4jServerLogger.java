package org.p2psip.servlet.logging;

import java.util.Properties;

import javax.sip.SipStack;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import gov.nist.core.ServerLogger;
import gov.nist.javax.sip.message.SIPMessage;

/**
 * JAIN-SIP RI's message logger, routed to SLF4J at TRACE under
 * {@value #LOGGER_NAME}. The RI's default {@code ServerLog} writes files
 * and drags in log4j; a front node under load must not format every
 * message, so nothing is encoded unless TRACE is on for that logger.
 */
public final class Slf4jServerLogger implements ServerLogger {

    public static final String LOGGER_NAME = "gov.nist.javax.sip.messages";

    private final Logger log = LoggerFactory.getLogger(LOGGER_NAME);

    public Slf4jServerLogger() {
    }

    @Override
    public void closeLogFile() {
        // Nothing to close: SLF4J owns the output.
    }

    @Override
    public void logMessage(SIPMessage message, String from, String to, boolean sender, long time) {
        if (log.isTraceEnabled()) {
            log.trace("{} {} -> {}\n{}", sender ? "sent" : "received", from, to, message);
        }
    }

    @Override
    public void logMessage(SIPMessage message, String from, String to, String status, boolean sender, long time) {
        if (log.isTraceEnabled()) {
            log.trace("{} {} -> {} ({})\n{}", sender ? "sent" : "received", from, to, status, message);
        }
    }

    @Override
    public void logMessage(SIPMessage message, String from, String to, String status, boolean sender) {
        logMessage(message, from, to, status, sender, 0L);
    }

    @Override
    public void logException(Exception ex) {
        log.warn("JAIN-SIP exception: {}", ex.toString(), ex);
    }

    @Override
    public void setStackProperties(Properties stackProperties) {
        // Levels come from the SLF4J backend's configuration.
    }

    @Override
    public void setSipStack(SipStack sipStack) {
        // Not needed: messages are logged as they come, with no per-stack files.
    }
}
