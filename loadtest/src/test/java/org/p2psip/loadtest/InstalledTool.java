package org.p2psip.loadtest;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A program from a Debian package that a test drives (SIPp, a softphone,
 * Chromium), found on the PATH as a shell would find it. A test that needs
 * one fails with the command that installs it rather than skipping:
 * {@code .ci/run} installs every one of them.
 */
final class InstalledTool {

    private InstalledTool() {
    }

    /** Where {@code program} is, or an error naming the {@code debianPackage} that brings it. */
    static String path(String program, String debianPackage) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            Path p = Path.of(dir, program);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        throw new AssertionError(program + " is not installed: apt-get install -y " + debianPackage
                + " (.ci/run does this)");
    }
}
