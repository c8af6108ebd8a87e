package org.p2psip.loadtest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.p2psip.core.testing.FreePorts;
import org.p2psip.servlet.netns.NamespaceHosts;

/**
 * Runs the real SIPp client (Debian's {@code sip-tester}) and reads its
 * verdict: the exit code (0 only when every call succeeded) and the final
 * statistics screen it writes with {@code -trace_screen}.
 */
final class Sipp {

    /**
     * What one SIPp run reported; {@code honoured503} counts the 503s a
     * scenario waited out before asking again (their Retry-After), as a phone
     * would, so a test can report how often the cluster shed load.
     */
    record Result(int exitCode, long successful, long failed, long honoured503, String screen) {
        @Override
        public String toString() {
            return "SIPp exit " + exitCode + ", " + successful + " successful, " + failed + " failed, "
                    + honoured503 + " 503s waited out\n" + screen;
        }
    }

    private static final Pattern SUCCESSFUL = Pattern.compile("Successful call\\s*\\|\\s*\\d+\\s*\\|\\s*(\\d+)");
    private static final Pattern FAILED = Pattern.compile("Failed call\\s*\\|\\s*\\d+\\s*\\|\\s*(\\d+)");
    /** A receive line of SIPp's scenario screen for a 503, and how many arrived. */
    private static final Pattern RECEIVED_503 = Pattern.compile("(?m)^\\s*503 <-+\\s+(?:E-RTD\\d\\s+)?(\\d+)");

    private Sipp() {
    }

    /** The sipp binary, or an error saying how to get it. */
    static String binary() {
        return InstalledTool.path("sipp", "sip-tester");
    }

    /** Starts SIPp in the background, e.g. as a UAS; the caller destroys it. */
    static Process startBackground(Path workDir, String... args) throws IOException {
        return startBackground(List.of(), workDir, args);
    }

    /** As {@link #startBackground(Path, String...)}, on a host of a {@link NamespaceHosts}. */
    static Process startBackground(NamespaceHosts.Host host, Path workDir, String... args) throws IOException {
        return startBackground(host.exec(), workDir, args);
    }

    private static Process startBackground(List<String> prefix, Path workDir, String... args) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.add(binary());
        command.addAll(List.of(args));
        command.add("-nostdin");
        return new ProcessBuilder(command).directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(workDir.resolve("sipp-background.log").toFile())
                .start();
    }

    /** Runs SIPp to completion, killing it if it overruns {@code timeout}. */
    static Result run(Path workDir, Duration timeout, String... args) throws IOException, InterruptedException {
        return run(List.of(), workDir, timeout, args);
    }

    /** As {@link #run(Path, Duration, String...)}, on a host of a {@link NamespaceHosts}. */
    static Result run(NamespaceHosts.Host host, Path workDir, Duration timeout, String... args)
            throws IOException, InterruptedException {
        return run(host.exec(), workDir, timeout, args);
    }

    private static Result run(List<String> prefix, Path workDir, Duration timeout, String... args)
            throws IOException, InterruptedException {
        Path screen = Files.createTempFile(workDir, "sipp-screen", ".log");
        List<String> command = new ArrayList<>(prefix);
        command.add(binary());
        command.addAll(List.of(args));
        command.addAll(List.of("-nostdin", "-trace_screen", "-screen_file", screen.toString(),
                "-timeout", timeout.toSeconds() + "s", "-timeout_error"));
        Process p = new ProcessBuilder(command).directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(workDir.resolve("sipp-output.log").toFile())
                .start();
        if (!p.waitFor(timeout.toSeconds() + 30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("SIPp overran its own timeout of " + timeout);
        }
        String text = Files.readString(screen, StandardCharsets.ISO_8859_1);
        String lastScreen = text.length() > 6000 ? text.substring(text.length() - 6000) : text;
        return new Result(p.exitValue(), last(SUCCESSFUL, text).orElse(-1), last(FAILED, text).orElse(-1),
                received503(text), lastScreen + "\n" + Files.readString(workDir.resolve("sipp-output.log"), StandardCharsets.ISO_8859_1));
    }

    /**
     * Registers {@code sip:USER@AOR_HOST_PORT} with the contact
     * {@code sip:USER@CONTACT_HOST_PORT} by one run of {@code sipp/register.xml}
     * sent to {@code sendTo}; the AOR's host names the node a caller will use.
     */
    static Result registerOne(Path workDir, String user, String contactHostPort, String aorHostPort, String sendTo)
            throws IOException, InterruptedException {
        Path csv = Files.createTempFile(workDir, "one-user", ".csv");
        Files.write(csv, List.of("SEQUENTIAL", user + ";" + contactHostPort), StandardCharsets.ISO_8859_1);
        return run(workDir, Duration.ofSeconds(30),
                "-sf", Path.of("sipp", "register.xml").toAbsolutePath().toString(), "-inf", csv.toString(),
                "-key", "regcseq", "1", "-m", "1", "-i", "127.0.0.1", "-p", Integer.toString(FreePorts.udpAndTcp()),
                "-rsa", sendTo, aorHostPort);
    }

    /**
     * Registers {@code sip:USER@TARGET} with the contact
     * {@code sip:USER@HOST:CONTACT_PORT} from a host of a {@link NamespaceHosts}
     * (sending from that host's port 5071): one run of {@code sipp/register.xml}.
     */
    static Result registerOneOn(NamespaceHosts.Host host, Path workDir, String user, int contactPort, String target)
            throws IOException, InterruptedException {
        Path csv = Files.createTempFile(workDir, "one-user", ".csv");
        Files.write(csv, List.of("SEQUENTIAL", user + ";" + host.address() + ":" + contactPort),
                StandardCharsets.ISO_8859_1);
        return run(host, workDir, Duration.ofSeconds(30),
                "-sf", Path.of("sipp", "register.xml").toAbsolutePath().toString(), "-inf", csv.toString(),
                "-key", "regcseq", "1", "-m", "1", "-i", host.address(), "-p", "5071", target);
    }

    /**
     * Registers {@code sip:USER@TARGET} with the contact
     * {@code sip:USER@CONTACT_HOST_PORT} and {@code password}: one run of
     * {@code sipp/register-auth.xml}, answering the registrar's challenge.
     */
    static Result registerOneWithPassword(Path workDir, String user, String password, String contactHostPort,
                                          String target) throws IOException, InterruptedException {
        Path csv = Files.createTempFile(workDir, "one-user", ".csv");
        Files.write(csv, List.of("SEQUENTIAL", user + ";" + contactHostPort + ";" + password), StandardCharsets.ISO_8859_1);
        return run(workDir, Duration.ofSeconds(30),
                "-sf", Path.of("sipp", "register-auth.xml").toAbsolutePath().toString(), "-inf", csv.toString(),
                "-au", "[field0]", "-ap", "[field2]", "-m", "1", "-i", "127.0.0.1",
                "-p", Integer.toString(FreePorts.udpAndTcp()), target);
    }

    /** The 503s on the last scenario screen in {@code text}, summed over the scenario's receive lines. */
    static long received503(String text) {
        int lastScreen = text.lastIndexOf("Scenario Screen");
        Matcher m = RECEIVED_503.matcher(lastScreen < 0 ? text : text.substring(lastScreen));
        long total = 0;
        while (m.find()) {
            total += Long.parseLong(m.group(1));
        }
        return total;
    }

    private static OptionalLong last(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        OptionalLong found = OptionalLong.empty();
        while (m.find()) {
            found = OptionalLong.of(Long.parseLong(m.group(1)));
        }
        return found;
    }

    /** The first {@code lines} lines of a SIPp {@code -error_file}, or "" when SIPp wrote none: for failure messages. */
    static String errorExcerpt(Path errorFile, int lines) throws IOException {
        if (!Files.exists(errorFile)) {
            return "";
        }
        return Files.readString(errorFile, StandardCharsets.ISO_8859_1).lines().limit(lines)
                .reduce("", (a, b) -> a + "\n" + b);
    }
}
