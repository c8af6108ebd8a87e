package org.p2psip.servlet.cli;

import java.lang.reflect.Field;
import java.nio.file.Path;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/**
 * {@code --config FILE}, the same for {@code node}, {@code lb} and
 * {@code cluster}: a service definition names one file instead of a long
 * command line. The command never reads the field itself;
 * {@link ConfigFileDefaults} finds the option by {@link #NAME} and gives
 * the file's values to the options the command line left out.
 */
final class ConfigFileOption {

    static final String NAME = "--config";

    @Option(names = NAME, paramLabel = "FILE",
            description = "Read settings from FILE (UTF-8): one 'key = value' per line, the key a flag's name "
                    + "without its dashes (sip = 10.0.0.2:5060); lines starting with # are comments. A repeatable "
                    + "flag may take several lines or a comma-separated list, a switch takes true or false. Flags "
                    + "given on the command line override the file's. See 'Configuration file' in docs/command-line.md.")
    Path file;

    /**
     * {@code command}'s {@code --config} if it is this mixin's, else null: a
     * subcommand plugged in from another module may mean something else by
     * that name.
     */
    static OptionSpec of(CommandSpec command) {
        OptionSpec option = command.findOption(NAME);
        return option != null && option.userObject() instanceof Field f && f.getDeclaringClass() == ConfigFileOption.class
                ? option : null;
    }
}
