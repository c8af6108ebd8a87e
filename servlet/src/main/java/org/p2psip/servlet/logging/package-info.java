/**
 * How nodes and balancers log, through SLF4J. JAIN-SIP RI's loggers are
 * routed there before the stack first logs
 * ({@link org.p2psip.servlet.logging.JainSipLogging},
 * {@link org.p2psip.servlet.logging.Slf4jStackLogger}), because the RI would
 * otherwise reach for log4j, which is not shipped. {@code --log-level} is
 * {@link org.p2psip.servlet.logging.LogLevel}; a library's exception is kept
 * to the line it was logged on. The access log
 * ({@link org.p2psip.servlet.logging.AccessLog}) writes one line per answered
 * transaction from a thread of its own, so a slow disk never holds up SIP.
 */
package org.p2psip.servlet.logging;
