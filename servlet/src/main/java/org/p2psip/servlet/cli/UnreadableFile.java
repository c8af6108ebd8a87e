package org.p2psip.servlet.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The one line a command prints for a file it could not read. Java's file
 * exceptions carry only the path as their message, which printed after the
 * path said "cannot read users.csv: users.csv".
 */
final class UnreadableFile {

    private UnreadableFile() {
    }

    /** {@code cannot read PATH: REASON}, the reason in words. */
    static String message(Path path, IOException e) {
        return "cannot read " + path + ": " + reason(e);
    }

    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        if (e instanceof FileSystemException || e.getMessage() == null) {
            return e.getClass().getSimpleName();
        }
        return e.getMessage();
    }
}
