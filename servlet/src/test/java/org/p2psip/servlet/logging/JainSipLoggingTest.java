package org.p2psip.servlet.logging;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import gov.nist.core.CommonLogger;
import gov.nist.core.LogLevels;
import gov.nist.core.StackLogger;
import gov.nist.javax.sip.message.MessageFactoryImpl;

class JainSipLoggingTest {

    @Test
    void log4jIsNotOnTheClassPath() {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.apache.log4j.Logger"));
    }

    @Test
    void riLoggersGoToSlf4jInsteadOfLog4j() {
        JainSipLogging.install();
        StackLogger riLogger = CommonLogger.getLogger(JainSipLoggingTest.class);

        // Without the install these calls reach org.apache.log4j and throw NoClassDefFoundError.
        assertDoesNotThrow(() -> {
            riLogger.logDebug("logged through SLF4J, below the configured level");
            riLogger.logTrace("trace");
            riLogger.isLoggingEnabled(LogLevels.TRACE_DEBUG);
        });
        assertTrue(CommonLogger.legacyLogger instanceof Slf4jStackLogger);
    }

    @Test
    void parsingBadInputWithoutAStackDoesNotNeedLog4j() {
        JainSipLogging.install();
        MessageFactoryImpl factory = new MessageFactoryImpl();

        assertThrows(java.text.ParseException.class, () -> factory.createRequest("INVITE <bad> SIP/2.0\r\n\r\n"));
    }

    @Test
    void messageTracingIsOffUnlessTraceIsEnabled() {
        Slf4jStackLogger logger = new Slf4jStackLogger();

        // TRACE_MESSAGES equals INFO in the RI; the test config keeps gov.nist at WARN.
        assertFalse(logger.isLoggingEnabled(LogLevels.TRACE_MESSAGES));
        assertTrue(logger.isLoggingEnabled(LogLevels.TRACE_ERROR));
    }

    @Test
    void tlsSetupNoticesAreNotWarnings() {
        assertTrue(Slf4jStackLogger.isTlsSetupNotice("TLS server settings will be inactive"));
        assertFalse(Slf4jStackLogger.isTlsSetupNotice("Could not create a message channel"));
    }
}
