package org.p2psip.servlet.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The settings of a {@code --config} file, in file order: one
 * {@code key = value} per line, blank lines and lines whose first non-blank
 * character is {@code #} ignored. Spaces around the key and the value are
 * trimmed; the value is everything after the first {@code =}, so it may
 * hold {@code =} and {@code #} (a secret, a {@code --dht-option} pair)
 * without quoting. There are no sections, quotes, escapes or trailing
 * comments: what an operator sees on the line is the value.
 *
 * <p>This is only the syntax. Which keys exist and what their values may
 * be is the command's, checked by {@link ConfigFileDefaults}.
 *
 * @param source   how messages name the file: the path as the operator gave it
 * @param settings the settings in the order they appear
 */
record ConfigFile(String source, List<Setting> settings) {

    ConfigFile {
        Objects.requireNonNull(source, "source");
        settings = List.copyOf(settings);
    }

    /**
     * One {@code key = value} line.
     *
     * @param key   the text before the first {@code =}, trimmed
     * @param value the text after it, trimmed; never empty
     * @param line  its line number, from 1
     */
    record Setting(String key, String value, int line) {

        Setting {
            if (key == null || key.isEmpty() || !key.equals(key.strip()) || key.indexOf('=') >= 0) {
                throw new IllegalArgumentException("a key is non-empty, trimmed text without '=', not '" + key + "'");
            }
            if (value == null || value.isEmpty() || !value.equals(value.strip())) {
                throw new IllegalArgumentException("a value is non-empty, trimmed text");
            }
            if (line < 1) {
                throw new IllegalArgumentException("line numbers start at 1, not " + line);
            }
        }
    }

    /**
     * Reads {@code text}, a whole file, whose lines end in LF, CRLF or CR.
     * A byte order mark at its start is skipped, as editors on some systems
     * write one.
     *
     * @throws ConfigFileException naming {@code source} and the line when a line is neither blank, a comment nor a
     *                             setting with a key and a value
     */
    static ConfigFile parse(String text, String source) throws ConfigFileException {
        String body = text.startsWith("\uFEFF") ? text.substring(1) : text;
        List<Setting> settings = new ArrayList<>();
        List<String> lines = body.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            int number = i + 1;
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int equals = line.indexOf('=');
            // The line itself is not quoted back: it may be a secret that lost its key.
            if (equals < 0) {
                throw new ConfigFileException(source + ":" + number + ": not a setting: a line is 'key = value', "
                        + "a comment starting with '#', or blank");
            }
            String key = line.substring(0, equals).strip();
            String value = line.substring(equals + 1).strip();
            if (key.isEmpty()) {
                throw new ConfigFileException(source + ":" + number + ": no key before '='");
            }
            if (value.isEmpty()) {
                throw new ConfigFileException(source + ":" + number + ": '" + key + "' has no value after '='");
            }
            settings.add(new Setting(key, value, number));
        }
        return new ConfigFile(source, settings);
    }

    /** {@code FILE:LINE} of a setting, how every message about it starts. */
    String where(Setting setting) {
        return source + ":" + setting.line();
    }
}
