package org.p2psip.servlet.logging;

import gov.nist.core.CommonLogger;

/**
 * Points JAIN-SIP RI's static logging at SLF4J before any RI class logs.
 *
 * <p>Every RI class holds a {@code CommonLogger}; on first use it delegates
 * to the static {@code CommonLogger.legacyLogger} when that is set and
 * otherwise calls {@code org.apache.log4j.Logger.getLogger}, which throws
 * {@code NoClassDefFoundError} without log4j on the class path. A stack sets
 * {@code legacyLogger} from its {@code STACK_LOGGER} property only when it is
 * constructed, so a message factory or parser used before that (unit tests,
 * start-up errors) would still hit log4j. Installing our logger up front
 * closes that window.
 */
public final class JainSipLogging {

    private static final Slf4jStackLogger LOGGER = new Slf4jStackLogger();

    private JainSipLogging() {
    }

    /** Idempotent; call before touching any {@code gov.nist} or {@code javax.sip} factory. */
    public static void install() {
        CommonLogger.useLegacyLogger = true;
        if (!(CommonLogger.legacyLogger instanceof Slf4jStackLogger)) {
            CommonLogger.legacyLogger = LOGGER;
        }
    }
}
