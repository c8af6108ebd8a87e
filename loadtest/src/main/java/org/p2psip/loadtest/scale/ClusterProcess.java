package org.p2psip.loadtest.scale;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.p2psip.core.net.HostPort;

/**
 * {@code p2psip cluster} run as a child process: the balancer and its N
 * node JVMs, started with this JVM's java binary, flags and class path so
 * the cluster runs what the benchmark was built with. The benchmark's own
 * JVM only generates load, so the generator and the nodes do not share a
 * heap or a garbage collector.
 *
 * <p>{@link #close} SIGTERMs the cluster (which SIGTERMs its nodes) and,
 * should anything outstay the grace period, kills the cluster and every
 * process it started.
 */
final class ClusterProcess implements AutoCloseable {

    static final String MAIN_CLASS = "org.p2psip.servlet.cli.P2psip";
    static final String READY = "p2psip cluster ready";
    private static final Duration GRACE = Duration.ofSeconds(25);
    private static final int KEPT_LINES = 40;

    /** Hazelcast's flags, which the p2psip launcher passes; added when this JVM lacks them (e.g. under a test runner). */
    private static final List<String> HAZELCAST_FLAGS = List.of("--add-modules", "java.se",
            "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-opens", "java.base/java.lang=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens", "java.management/sun.management=ALL-UNNAMED",
            "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED");

    private final Process process;
    private final HostPort balancer;
    private final List<HostPort> admins;
    /** The nodes' {@code --metrics} endpoints, node 1 first. */
    private final List<HostPort> metrics;
    private final Optional<String> secret;
    private final Deque<String> lastLines = new ArrayDeque<>();
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    private ClusterProcess(Process process, HostPort balancer, List<HostPort> admins, List<HostPort> metrics,
                           Optional<String> secret, Path log) {
        this.process = process;
        this.balancer = balancer;
        this.admins = List.copyOf(admins);
        this.metrics = List.copyOf(metrics);
        this.secret = secret;
        Thread pump = new Thread(() -> pump(log), "scale-cluster-output-" + process.pid());
        pump.setDaemon(true);
        pump.start();
    }

    /**
     * Starts a cluster on free ports of 127.0.0.1 and waits for its ready
     * line. On any failure the process is stopped before this throws.
     *
     * @param authRequired whether the nodes require digest authentication; they then serve admin
     *                     endpoints with a secret of this run's own, for the generator to provision its users
     * @param policy       the balancer's {@code --policy}
     * @param log          where the cluster's and its nodes' output goes
     */
    static ClusterProcess start(String dht, int nodes, int replicas, boolean authRequired, String policy,
                                Duration timeout, Path log)
            throws ClusterStartException {
        int sipBase = LocalPorts.consecutive(nodes + 1, 0, 0);
        int overlayBase = LocalPorts.consecutive(nodes, sipBase, sipBase + nodes + 1);
        HostPort lb = new HostPort("127.0.0.1", sipBase);
        List<String> command = new ArrayList<>(javaCommand());
        command.addAll(List.of(MAIN_CLASS, "cluster", "--dht", dht, "--nodes", Integer.toString(nodes),
                "--sip", lb.toString(), "--overlay-base", Integer.toString(overlayBase),
                "--replicas", Integer.toString(Math.min(replicas, nodes)), "--policy", policy,
                // The generator is one address sending far above any phone's rate: not a flood to ban.
                "--trusted-source", "127.0.0.1"));
        // The nodes' metrics ports and, after them, the balancer's.
        int metricsBase = LocalPorts.consecutive(nodes + 1, Math.min(sipBase, overlayBase),
                Math.max(sipBase + nodes + 1, overlayBase + nodes));
        List<HostPort> metrics = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            metrics.add(new HostPort("127.0.0.1", metricsBase + i));
        }
        command.addAll(List.of("--metrics-base", Integer.toString(metricsBase)));
        List<HostPort> admins = new ArrayList<>();
        Optional<String> secret = Optional.empty();
        if (authRequired) {
            int adminBase = LocalPorts.consecutive(nodes, Math.min(Math.min(sipBase, overlayBase), metricsBase),
                    Math.max(Math.max(sipBase + nodes + 1, overlayBase + nodes), metricsBase + nodes + 1));
            for (int i = 0; i < nodes; i++) {
                admins.add(new HostPort("127.0.0.1", adminBase + i));
            }
            command.addAll(List.of("--auth", "required", "--admin-base", Integer.toString(adminBase)));
            secret = Optional.of(UUID.randomUUID().toString());
        } else {
            command.addAll(List.of("--auth", "none", "--admin-base", "0"));
        }
        Process p;
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            secret.ifPresent(s -> builder.environment().put("P2PSIP_CLUSTER_SECRET", s));
            p = builder.start();
        } catch (IOException e) {
            throw new ClusterStartException("cannot start the cluster: " + e.getMessage());
        }
        ClusterProcess cluster = new ClusterProcess(p, lb, admins, metrics, secret, log);
        try {
            cluster.ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return cluster;
        } catch (TimeoutException e) {
            cluster.close();
            throw new ClusterStartException("the cluster did not get ready within " + timeout.toSeconds() + " s: "
                    + cluster.lastWords());
        } catch (ExecutionException e) {
            cluster.close();
            throw new ClusterStartException("the cluster failed to start: " + cluster.lastWords());
        } catch (InterruptedException e) {
            cluster.close();
            Thread.currentThread().interrupt();
            throw new ClusterStartException("interrupted while the cluster started");
        }
    }

    /** Where the balancer listens: the only address load goes to. */
    HostPort balancer() {
        return balancer;
    }

    /** The nodes' admin endpoints; empty when the cluster runs without authentication. */
    List<HostPort> admins() {
        return admins;
    }

    /** The nodes' metrics endpoints, which the benchmark reads DHT-operation latency from. */
    List<HostPort> metrics() {
        return metrics;
    }

    /** The secret those endpoints want. */
    Optional<String> secret() {
        return secret;
    }

    /**
     * CPU time used so far: by the node JVMs (the cluster's child
     * processes), by the balancer (the cluster process itself) and by this
     * JVM, which generates the load. Empty when the operating system does
     * not say for one of them.
     */
    Optional<CpuCost.Sample> cpu() {
        Optional<Duration> balancerCpu = process.toHandle().info().totalCpuDuration();
        Optional<Duration> generatorCpu = ProcessHandle.current().info().totalCpuDuration();
        if (balancerCpu.isEmpty() || generatorCpu.isEmpty()) {
            return Optional.empty();
        }
        Duration nodesCpu = Duration.ZERO;
        for (ProcessHandle node : process.children().toList()) {
            Optional<Duration> d = node.info().totalCpuDuration();
            if (d.isEmpty()) {
                return Optional.empty();
            }
            nodesCpu = nodesCpu.plus(d.get());
        }
        return Optional.of(new CpuCost.Sample(nodesCpu, balancerCpu.get(), generatorCpu.get()));
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Stops the cluster and every process under it; safe to call twice and from a shutdown hook. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        // Taken before the cluster goes: once it is dead its nodes are no longer its descendants.
        List<ProcessHandle> tree = process.descendants().toList();
        process.destroy();
        try {
            if (!process.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (ProcessHandle h : tree) {
            if (h.isAlive()) {
                h.destroy();
            }
        }
        for (ProcessHandle h : tree) {
            try {
                h.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException e) {
                h.destroyForcibly();
            } catch (InterruptedException e) {
                h.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The cluster's last non-blank output line, which for a failed start is its one-line error. */
    String lastWords() {
        synchronized (lastLines) {
            for (var it = lastLines.descendingIterator(); it.hasNext(); ) {
                String line = it.next().strip();
                if (!line.isEmpty() && !line.startsWith("[node")) {
                    return line;
                }
            }
            return lastLines.isEmpty() ? (process.isAlive() ? "no output" : "exited with code " + process.exitValue())
                    : lastLines.getLast().strip();
        }
    }

    private void pump(Path log) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
             BufferedWriter w = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
            String line;
            while ((line = r.readLine()) != null) {
                w.write(line);
                w.newLine();
                w.flush();
                synchronized (lastLines) {
                    lastLines.addLast(line);
                    if (lastLines.size() > KEPT_LINES) {
                        lastLines.removeFirst();
                    }
                }
                if (line.startsWith(READY)) {
                    ready.complete(null);
                }
            }
        } catch (IOException e) {
            // The process is gone or the log cannot be written; the exit is noticed below.
        }
        ready.completeExceptionally(new IllegalStateException("exited"));
    }

    /** This JVM's java binary and flags (minus a debugger agent, whose port a child cannot share), and class path. */
    static List<String> javaCommand() {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        List<String> flags = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> !a.startsWith("-agentlib:jdwp") && !a.startsWith("-Xrunjdwp")).toList();
        command.addAll(flags);
        if (flags.stream().noneMatch(a -> a.contains("sun.nio.ch=ALL-UNNAMED"))) {
            command.addAll(HAZELCAST_FLAGS);
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        return command;
    }

    /** A cluster that did not start, with its one-line reason. */
    static final class ClusterStartException extends Exception {
        ClusterStartException(String message) {
            super(message, null, false, false);
        }
    }
}
