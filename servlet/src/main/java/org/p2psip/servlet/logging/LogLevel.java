package org.p2psip.servlet.logging;

import java.util.List;
import java.util.Locale;

import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;

/**
 * {@code --log-level}: how much a node or balancer says on standard error.
 * {@code info} (the default) is one line at start-up and warnings after
 * that; {@code debug} adds what each part decides (who is taken for dead,
 * ranges moved, bad input); {@code warn} and {@code error} are quieter.
 * The SIP stack's and Hazelcast's own loggers stay at WARN whatever the
 * level: at DEBUG they write every message they handle.
 */
public final class LogLevel {

    /** The accepted names, quietest last. */
    public static final List<String> NAMES = List.of("trace", "debug", "info", "warn", "error");

    private LogLevel() {
    }

    /**
     * Sets this process's level for everything but the SIP stack and Hazelcast.
     *
     * @throws IllegalArgumentException naming the accepted levels when {@code name} is none of them
     */
    public static void apply(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        if (!NAMES.contains(lower)) {
            throw new IllegalArgumentException("unknown log level '" + name + "' (one of " + String.join(", ", NAMES)
                    + ")");
        }
        Level level = Level.toLevel(lower);
        if (LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME) instanceof Logger root) {
            root.setLevel(level);
        }
        if (LoggerFactory.getLogger("org.p2psip") instanceof Logger own) {
            own.setLevel(level);
        }
    }
}
