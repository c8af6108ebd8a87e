package org.p2psip.servlet.cli;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import org.p2psip.servlet.cli.ConfigFile.Setting;

import picocli.CommandLine;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * The values of a command's {@code --config FILE} ({@link ConfigFileOption}),
 * given to picocli as defaults. Picocli asks a default provider after it
 * has parsed the arguments, and only for the options they did not give, so
 * a flag overrides the file's setting of it (a repeatable flag's values
 * replace the file's, they are not added to them), and a required option
 * is satisfied by the file.
 *
 * <p>A key is any long name of an option without its dashes. The whole
 * file is checked against the command the first time picocli asks, once
 * per parse: an unknown key (with the closest known one when there is
 * one), {@code help}, {@code version} or {@code config} (no file names
 * another), a second line for a flag that takes one value, a switch set to
 * anything but {@code true} or {@code false}, or an empty item in a
 * comma-separated list is a {@link ParameterException} that starts with
 * {@code FILE:LINE}. A repeatable flag's values accumulate in file order
 * and reach picocli joined by the {@code ","} every such option splits at.
 * With {@code --help} or {@code --version} the file is not read.
 *
 * <p>Values are taken literally: picocli would expand {@code ${...}} and
 * {@code $$} in a default, and a secret may hold either.
 */
final class ConfigFileDefaults implements IDefaultValueProvider {

    private final Map<CommandSpec, Loaded> loaded = new HashMap<>();

    /**
     * A file read for one parse of a command.
     *
     * @param given  the {@code --config} value of that parse
     * @param values what the file sets each option to
     */
    private record Loaded(Path given, Map<OptionSpec, Value> values) {
    }

    /**
     * What a file sets one option to.
     *
     * @param text  the value as picocli takes it (a repeatable option's items joined by commas)
     * @param items each item with the line it came from, to say where a value picocli refuses was written
     * @param file  the file, which names those lines
     */
    private record Value(String text, List<Setting> items, ConfigFile file) {
    }

    @Override
    public String defaultValue(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option) || option.command() == null) {
            return null;
        }
        CommandSpec command = option.command();
        OptionSpec config = ConfigFileOption.of(command);
        if (config == null || option == config || !(config.getValue() instanceof Path path)) {
            return null;
        }
        CommandLine cl = command.commandLine();
        // Help shows the built-in defaults, and a broken file does not stand between the operator and --help.
        if (cl.isUsageHelpRequested() || cl.isVersionHelpRequested()) {
            return null;
        }
        Value value = load(command, config, path).values().get(option);
        if (value == null) {
            return null;
        }
        return command.interpolateVariables() ? value.text().replace("$", "$$") : value.text();
    }

    /**
     * {@code FILE:LINE} of the setting that gave a value picocli refused
     * (a port that is not a number, a host:port without the port), when
     * {@code ex} is about such a value of the parse that just failed.
     */
    Optional<String> origin(ParameterException ex) {
        if (!(ex.getArgSpec() instanceof OptionSpec option) || option.command() == null) {
            return Optional.empty();
        }
        CommandSpec command = option.command();
        OptionSpec config = ConfigFileOption.of(command);
        Loaded file = loaded.get(command);
        // Only a file read in this very parse: a new parse converts --config into a new Path.
        if (config == null || file == null || file.given() != config.getValue()) {
            return Optional.empty();
        }
        Value value = file.values().get(option);
        if (value == null) {
            return Optional.empty();
        }
        Setting item = value.items().stream().filter(s -> s.value().equals(ex.getValue())).findFirst()
                .orElse(value.items().get(0));
        return Optional.of(value.file().where(item));
    }

    private Loaded load(CommandSpec command, OptionSpec config, Path path) {
        Loaded file = loaded.get(command);
        // Picocli converts --config afresh on each parse: another Path object is another invocation.
        if (file != null && file.given() == path) {
            return file;
        }
        try {
            file = new Loaded(path, values(command, ConfigFile.parse(read(path), path.toString()), config));
        } catch (ConfigFileException e) {
            // Picocli passes a provider's ParameterException on as it is; it would wrap anything else in a
            // message about the argument it had reached, which is not where the fault is.
            throw new ParameterException(command.commandLine(), e.getMessage());
        }
        loaded.put(command, file);
        return file;
    }

    private static String read(Path path) throws ConfigFileException {
        try {
            return Files.readString(path);
        } catch (CharacterCodingException e) {
            throw new ConfigFileException(path + " is not UTF-8 text");
        } catch (IOException e) {
            throw new ConfigFileException(UnreadableFile.message(path, e));
        }
    }

    /** Checks every setting of {@code file} against {@code command}'s options and groups them by option. */
    private static Map<OptionSpec, Value> values(CommandSpec command, ConfigFile file, OptionSpec config)
            throws ConfigFileException {
        Map<String, OptionSpec> keys = new LinkedHashMap<>();
        List<String> refused = new ArrayList<>();
        for (OptionSpec option : command.options()) {
            // Help and version would make a file stop the command; a file naming another would nest.
            boolean settable = !option.usageHelp() && !option.versionHelp() && option != config;
            for (String name : option.names()) {
                if (name.startsWith("--")) {
                    if (settable) {
                        keys.put(name.substring(2), option);
                    } else {
                        refused.add(name.substring(2));
                    }
                }
            }
        }
        Map<OptionSpec, List<Setting>> items = new LinkedHashMap<>();
        for (Setting setting : file.settings()) {
            String where = file.where(setting);
            String key = setting.key();
            OptionSpec option = keys.get(key);
            if (option == null) {
                if (refused.contains(key)) {
                    throw new ConfigFileException(where + ": '" + key + "' cannot be set in a configuration file");
                }
                throw new ConfigFileException(where + ": unknown setting '" + key + "' for '"
                        + command.qualifiedName() + "'" + closest(key, keys.keySet())
                        .map(k -> " (did you mean '" + k + "'?)").orElse(""));
            }
            List<Setting> earlier = items.get(option);
            if (earlier != null && !option.isMultiValue()) {
                Setting first = earlier.get(0);
                throw new ConfigFileException(where + ": '" + key + "' is already set on line " + first.line()
                        + (first.key().equals(key) ? "" : " (as '" + first.key() + "')")
                        + "; only a repeatable flag may be given more than once");
            }
            if (option.arity().max() == 0 && !setting.value().equals("true") && !setting.value().equals("false")) {
                throw new ConfigFileException(where + ": '" + key + "' is a switch: true or false, not '"
                        + setting.value() + "'");
            }
            List<Setting> forOption = items.computeIfAbsent(option, o -> new ArrayList<>());
            if (option.isMultiValue()) {
                for (String item : setting.value().split(",", -1)) {
                    if (item.isBlank()) {
                        throw new ConfigFileException(where + ": '" + key + "' has an empty item in its "
                                + "comma-separated list");
                    }
                    forOption.add(new Setting(key, item.strip(), setting.line()));
                }
            } else {
                forOption.add(setting);
            }
        }
        Map<OptionSpec, Value> values = new HashMap<>();
        items.forEach((option, list) -> values.put(option, new Value(
                list.stream().map(Setting::value).collect(Collectors.joining(",")), list, file)));
        return values;
    }

    /** The known key a mistyped one most likely meant: at most two edits away, and not most of the key. */
    private static Optional<String> closest(String key, Iterable<String> known) {
        String bare = key.replaceFirst("^-+", "");
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : known) {
            int d = editDistance(bare, k);
            if (d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        return best != null && bestDistance <= 2 && bestDistance * 2 < best.length() ? Optional.of(best)
                : Optional.empty();
    }

    /** Insertions, deletions, substitutions and swaps of neighbours that turn {@code a} into {@code b}. */
    private static int editDistance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
