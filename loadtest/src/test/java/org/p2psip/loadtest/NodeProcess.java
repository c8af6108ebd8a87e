package org.p2psip.loadtest;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.p2psip.servlet.netns.NamespaceHosts;

/**
 * A {@code p2psip} command run as a separate JVM on the test's class path,
 * the way an operator runs it. Output lines are kept for assertions.
 */
final class NodeProcess implements AutoCloseable {

    static final String MAIN_CLASS = "org.p2psip.servlet.cli.P2psip";

    private final Process process;
    private final List<String> output = new CopyOnWriteArrayList<>();

    private NodeProcess(Process process) {
        this.process = process;
        Thread pump = new Thread(this::pump, "node-output-" + process.pid());
        pump.setDaemon(true);
        pump.start();
    }

    /** Starts {@code p2psip ARGS...}. */
    static NodeProcess start(String... args) throws IOException {
        return start(Map.of(), args);
    }

    /** Starts {@code p2psip ARGS...} with {@code env} added to its environment (the cluster secret, ...). */
    static NodeProcess start(Map<String, String> env, String... args) throws IOException {
        return start(List.of(), env, args);
    }

    /** Starts {@code p2psip ARGS...} on a host of a {@link NamespaceHosts} ({@code ip netns exec} execs, so the pid is java's). */
    static NodeProcess startOn(NamespaceHosts.Host host, String... args) throws IOException {
        return start(host.exec(), Map.of(), args);
    }

    private static NodeProcess start(List<String> prefix, Map<String, String> env, String... args) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(javaCommand());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        Process p = builder.start();
        return new NodeProcess(p);
    }

    /** {@code java} with the launcher's flags and this build's classes, up to the main class: p2psip without ARGS. */
    static List<String> javaCommand() {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xms256m");
        // The launcher's collector settings and, as root, its thread priorities, so nodes here run as they do there.
        command.addAll(List.of("-XX:+UseG1GC", "-XX:MaxTenuringThreshold=1"));
        if ("root".equals(System.getProperty("user.name"))) {
            command.add("-XX:ThreadPriorityPolicy=1");
        }
        // The flags the p2psip launcher gives Hazelcast, so nodes run here as they do there.
        command.addAll(List.of("--add-modules", "java.se",
                "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
                "--add-opens", "java.base/java.lang=ALL-UNNAMED",
                "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens", "java.management/sun.management=ALL-UNNAMED",
                "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED"));
        // Extra JVM flags for the nodes when diagnosing a test, e.g. -Dp2psip.test.nodeJvm=-Dlogback.configurationFile=F
        String extra = System.getProperty("p2psip.test.nodeJvm", "").strip();
        if (!extra.isEmpty()) {
            command.addAll(List.of(extra.split("\\s+")));
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(MAIN_CLASS);
        return command;
    }

    /** Waits until a line containing {@code text} is printed, or fails at the deadline. */
    NodeProcess awaitOutput(String text, Duration timeout) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            if (output.stream().anyMatch(l -> l.contains(text))) {
                return this;
            }
            if (!process.isAlive()) {
                throw new AssertionError("node exited with " + process.exitValue() + " before printing '"
                        + text + "':\n" + String.join("\n", output));
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        throw new AssertionError("node did not print '" + text + "' within " + timeout + ":\n" + String.join("\n", output));
    }

    /** Waits for the process to end by itself and returns its exit code. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("process still running after " + timeout);
        }
        return process.exitValue();
    }

    List<String> output() {
        return List.copyOf(output);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL: the node gets no chance to hand anything over. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** SIGTERM, then SIGKILL if it does not stop within ten seconds. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private void pump() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                output.add(line);
            }
        } catch (IOException e) {
            output.add("[output closed: " + e + "]");
        }
    }
}
