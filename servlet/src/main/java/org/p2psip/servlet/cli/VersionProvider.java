package org.p2psip.servlet.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

import picocli.CommandLine.IVersionProvider;

/** The project version, filtered into {@code version.properties} by the build. */
final class VersionProvider implements IVersionProvider {

    @Override
    public String[] getVersion() {
        Properties p = new Properties();
        try (InputStream in = VersionProvider.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // Fall through to "unknown".
        }
        return new String[] {"p2psip " + p.getProperty("version", "unknown")
                + " (Java " + System.getProperty("java.version") + ")"};
    }
}
