package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.testing.FreePorts;

/**
 * The README's quick start and its "Register a phone" section, run as a
 * reader runs them: the node's commands, {@code user add}, the lines that
 * write baresip's accounts and config, each through bash exactly as the
 * README prints them, in a folder whose {@code ./p2psip} runs this build.
 * Two baresip phones register, call each other and hang up, first over
 * UDP through the lone node, then over TLS through the one-node cluster
 * the README starts for TLS. What a terminal cannot give a test is added
 * around the README's text, never instead of it: phones get headless
 * audio, a control port and addresses on 127.0.0.1
 * ({@link Baresip#startIn}), and {@code CERT} becomes the path the cluster
 * printed.
 *
 * <p>The node's ports are the README's (5060, 5059, 8060, 8001): a machine
 * that runs a SIP server of its own fails this test, saying which port.
 */
@Timeout(300)
class QuickStartPhonesTest {

    @TempDir
    Path work;

    @Test
    void baresipRegistersCallsAndHangsUpAsTheReadmeSaysOverUdpThenTls() throws Exception {
        ReadmeBlocks readme = ReadmeBlocks.read();
        Terminal terminal = new Terminal(work);
        List<String> nodeBlock = readme.withLine("./p2psip node --dht local");
        terminal.export(ReadmeBlocks.line(nodeBlock, "export P2PSIP_CLUSTER_SECRET="));
        List<String> users = readme.withLine("user add bob@p2psip.test", "127.0.0.1:8060");
        List<String> phones = readme.withLine("> ~/.baresip-alice/accounts", "127.0.0.1:5060");

        try (Terminal.Job node = terminal.background(ReadmeBlocks.line(nodeBlock, "./p2psip node "), "node")) {
            node.await("p2psip node listening on sip:127.0.0.1:5060", Duration.ofSeconds(90));
            users.forEach(terminal::run);
            callAndHangUp(terminal, phones, "UDP", true);
            assertNoUnansweredChallenge(node);
        }

        List<String> cluster = readme.withLine("./p2psip cluster --dht local --nodes 1", "--tls");
        List<String> tlsPhones = readme.withLine("sip_cafile CERT");
        try (Terminal.Job tls = terminal.background(ReadmeBlocks.line(cluster, "./p2psip cluster "), "cluster")) {
            String ready = tls.await("p2psip cluster ready", Duration.ofSeconds(120));
            Matcher cert = Pattern.compile("TLS certificate (\\S+) \\(clients trust this\\)").matcher(ready);
            assertTrue(cert.find(), "the cluster names its certificate:\n" + ready);
            cluster.stream().filter(l -> l.contains("./p2psip user add ")).forEach(terminal::run);
            tlsPhones.stream().map(l -> l.replace("CERT", cert.group(1))).forEach(terminal::run);
            // "They register ..., and call and hang up as before": the same phones, started again.
            callAndHangUp(terminal, phones, "TLS", false);
            assertNoUnansweredChallenge(tls);
        }
    }

    @Test
    void baresipFacingTheDefaultAlgorithmsIsLoggedWithTheCause() throws Exception {
        int sip = FreePorts.udpAndTcp();
        int admin = FreePorts.udpAndTcp();
        Map<String, String> env = Map.of("P2PSIP_CLUSTER_SECRET", "quick-start-default-algorithms");
        try (NodeProcess node = NodeProcess.start(env, "node", "--dht", "local", "--sip", "127.0.0.1:" + sip,
                "--domain", "p2psip.test", "--admin", "127.0.0.1:" + admin)) {
            node.awaitOutput("listening", Duration.ofSeconds(90));
            try (Baresip phone = Baresip.start(work, "sha", "sip:carol@p2psip.test", "whatever",
                    "127.0.0.1:" + sip, false)) {
                phone.awaitOutput("Function not implemented", Duration.ofSeconds(20));
                node.awaitOutput("did not answer within 5 s", Duration.ofSeconds(20));
                String line = node.output().stream().filter(l -> l.contains("did not answer")).findFirst()
                        .orElseThrow();
                assertTrue(line.contains("WARN") && line.contains("(baresip v1.0.0")
                        && line.contains("sip:carol@p2psip.test") && line.contains("--digest-algorithms MD5"), line);
            }
        }
    }

    /**
     * Starts the phones the README's {@code baresip -f DIR} lines name,
     * after running the lines before them when {@code setUp}; alice calls
     * bob, bob answers, alice hangs up and bob hears the BYE.
     */
    private static void callAndHangUp(Terminal terminal, List<String> phones, String transport, boolean setUp)
            throws Exception {
        List<Baresip> started = new ArrayList<>();
        try {
            for (String line : phones) {
                if (line.startsWith("baresip -f ")) {
                    Path dir = terminal.home(line.substring("baresip -f ".length()).strip());
                    String who = dir.getFileName().toString().replace(".baresip-", "");
                    Baresip phone = Baresip.startIn(dir, who + "-" + transport, List.of(), false);
                    started.add(phone);
                    phone.awaitOutput(who + "@p2psip.test: {0/" + transport + "/v4} 200 OK", Duration.ofSeconds(20));
                } else if (setUp) {
                    terminal.run(line);
                }
            }
            assertEquals(2, started.size(), "the README starts two phones: " + phones);
            Baresip bob = started.get(0);
            Baresip alice = started.get(1);
            alice.command("dial", "sip:bob@p2psip.test");
            alice.awaitOutput("Call established: sip:bob@p2psip.test", Duration.ofSeconds(20));
            bob.awaitOutput("Call established: sip:alice@p2psip.test", Duration.ofSeconds(20));
            alice.command("hangup", "");
            bob.awaitOutput("sip:alice@p2psip.test: session closed", Duration.ofSeconds(20));
        } finally {
            for (Baresip b : started) {
                b.close();
            }
        }
    }

    private static void assertNoUnansweredChallenge(Terminal.Job job) throws IOException {
        String output = job.output();
        assertTrue(!output.contains("did not answer within"), "every phone answered its challenge:\n" + output);
    }

    /**
     * A shell as the README's reader has one: its environment (what
     * {@code export} lines set), a home folder of its own, and a working
     * folder whose {@code ./p2psip} runs this build's classes with the
     * launcher's JVM flags.
     */
    private static final class Terminal {

        private final Path dir;
        private final Path home;
        private final Map<String, String> env = new HashMap<>();

        Terminal(Path dir) throws IOException {
            this.dir = dir;
            this.home = Files.createDirectories(dir.resolve("home"));
            env.put("HOME", home.toString());
            String java = NodeProcess.javaCommand().stream().map(Terminal::quoted).collect(Collectors.joining(" "));
            Path launcher = dir.resolve("p2psip");
            Files.writeString(launcher, "#!/bin/sh\nexec " + java + " \"$@\"\n", StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        }

        private static String quoted(String word) {
            return "'" + word.replace("'", "'\\''") + "'";
        }

        /** {@code ~/x} in this terminal's home. */
        Path home(String path) {
            return path.startsWith("~/") ? home.resolve(path.substring(2)) : dir.resolve(path);
        }

        /** Runs an {@code export NAME=...} line and keeps what it set. */
        void export(String line) {
            Matcher m = Pattern.compile("^export (\\w+)=").matcher(line);
            assertTrue(m.find(), line);
            String value = run(line + "\nprintf '%s' \"$" + m.group(1) + "\"");
            env.put(m.group(1), value);
        }

        /** Runs one line of the README to its end; it must succeed. Returns what it printed. */
        String run(String line) {
            try {
                Process p = bash(line).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "still running: " + line);
                assertEquals(0, p.exitValue(), "$ " + line + "\n" + out);
                return out;
            } catch (IOException e) {
                throw new AssertionError("cannot run " + line, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        /** Starts a line that runs until stopped (a node, a cluster), as in a terminal of its own. */
        Job background(String line, String name) throws IOException {
            Path out = dir.resolve(name + ".out");
            Process p = bash("exec " + line).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            return new Job(p, out);
        }

        private ProcessBuilder bash(String script) {
            ProcessBuilder b = new ProcessBuilder("bash", "-c", script).directory(dir.toFile());
            b.environment().putAll(env);
            return b;
        }

        /** A line running in the background, and what it has printed so far. */
        record Job(Process process, Path out) implements AutoCloseable {

            String output() throws IOException {
                return Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "";
            }

            /** Waits for a line containing {@code text}; returns everything printed until then. */
            String await(String text, Duration timeout) throws Exception {
                Instant deadline = Instant.now().plus(timeout);
                while (Instant.now().isBefore(deadline)) {
                    String now = output();
                    if (now.contains(text)) {
                        return now;
                    }
                    if (!process.isAlive()) {
                        throw new AssertionError("exited with " + process.exitValue() + " before printing '" + text
                                + "':\n" + now);
                    }
                    TimeUnit.MILLISECONDS.sleep(100);
                }
                throw new AssertionError("did not print '" + text + "' within " + timeout + ":\n" + output());
            }

            @Override
            public void close() throws Exception {
                process.destroy();
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }
}
