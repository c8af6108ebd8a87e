package org.p2psip.servlet.logging;

import ch.qos.logback.classic.pattern.ThrowableHandlingConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;

/**
 * Logback's {@code %cause}: an event's exception, and what caused it, as
 * {@code " (Class: message; caused by Class: message)"} on the event's own
 * line instead of a stack trace after it.
 *
 * <p>For libraries whose warnings report an expected network failure with
 * the stack of their own I/O thread: when a Hazelcast member is killed, its
 * peers warn that the connection was reset, and the eight frames of
 * Hazelcast's selector loop under it told an operator nothing the first
 * line did not. Messages are cut to one line each, so a remote peer's text
 * cannot start lines of its own, and at most {@value #CAUSES} exceptions of
 * a chain are named.
 */
public final class OneLineCauseConverter extends ThrowableHandlingConverter {

    /** Exceptions of a cause chain named at most; a chain may loop. */
    static final int CAUSES = 4;

    @Override
    public String convert(ILoggingEvent event) {
        IThrowableProxy thrown = event.getThrowableProxy();
        if (thrown == null) {
            return "";
        }
        StringBuilder line = new StringBuilder(" (");
        for (int named = 0; thrown != null && named < CAUSES; thrown = thrown.getCause(), named++) {
            if (named > 0) {
                line.append("; caused by ");
            }
            line.append(thrown.getClassName());
            if (thrown.getMessage() != null) {
                line.append(": ").append(thrown.getMessage().replaceAll("\\p{Cntrl}+", " ").strip());
            }
        }
        return line.append(')').toString();
    }
}
