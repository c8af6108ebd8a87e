package org.p2psip.servlet.cli;

import java.util.Optional;

import org.p2psip.servlet.logging.LogLevel;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code --log-level}, the same for {@code node}, {@code lb} and {@code cluster} (which passes it on). */
final class LogLevelOption {

    @Option(names = "--log-level", paramLabel = "LEVEL",
            description = "What the process writes on standard error: error, warn, info (one line at start-up, then "
                    + "warnings), debug (what its parts decide: peers taken for dead, ranges moved, bad input) or "
                    + "trace; cluster gives its nodes the same. Default: info, or what a logback configuration given "
                    + "with -Dlogback.configurationFile says.")
    String level;

    /** Sets this process's level if one was given; an unknown one is the command line's error. */
    void apply(CommandSpec spec) {
        if (level == null) {
            return;
        }
        try {
            LogLevel.apply(level);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** The level given, if any. */
    Optional<String> given() {
        return Optional.ofNullable(level);
    }
}
