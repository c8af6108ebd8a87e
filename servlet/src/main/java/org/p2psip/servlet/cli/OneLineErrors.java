package org.p2psip.servlet.cli;

import java.io.PrintWriter;

import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Reports a bad flag or a failure as one line on stderr with a non-zero
 * exit code (DESIGN.md, "Command line contract"), never a stack trace:
 * scripts read the line, people read {@code --help}.
 */
final class OneLineErrors implements IParameterExceptionHandler, IExecutionExceptionHandler {

    static final int USAGE = 2;
    static final int FAILURE = 1;

    private final ConfigFileDefaults configFiles;

    /** {@code configFiles} says which refused values came from a {@code --config} file, and from which line. */
    OneLineErrors(ConfigFileDefaults configFiles) {
        this.configFiles = configFiles;
    }

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        String where = configFiles.origin(ex).map(w -> w + ": ").orElse("");
        print(cmd, where + ex.getMessage() + " (see '" + cmd.getCommandSpec().qualifiedName() + " --help')");
        return USAGE;
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, ParseResult parseResult) {
        if (ex instanceof ParameterException pe) {
            return handleParseException(pe, parseResult.originalArgs().toArray(String[]::new));
        }
        String message = ex.getMessage() == null ? ex.getClass().getSimpleName() : ex.getMessage();
        print(cmd, message);
        return FAILURE;
    }

    static void print(CommandLine cmd, String message) {
        PrintWriter err = cmd.getErr();
        err.println(cmd.getCommandSpec().qualifiedName() + ": " + message.replace('\n', ' ').replace('\r', ' '));
        err.flush();
    }
}
