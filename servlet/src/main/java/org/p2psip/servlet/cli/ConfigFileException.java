package org.p2psip.servlet.cli;

/**
 * A {@code --config} file that cannot be used, with a one-line reason that
 * starts with {@code FILE:LINE} when one line is at fault
 * ({@code node.conf:7: unknown setting 'domian' ...}): the command line
 * prints it as it is.
 */
final class ConfigFileException extends Exception {

    ConfigFileException(String message) {
        super(message.replace('\n', ' ').replace('\r', ' '), null, false, false);
    }
}
