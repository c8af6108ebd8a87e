package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.testing.Eventually;
import org.p2psip.servlet.netns.NamespaceHosts;

/**
 * The cluster as it is deployed: the balancer, three hazelcast nodes, the
 * callee and the caller each on a host of its own (network namespaces on
 * a bridge), every process bound to all interfaces and told its address
 * with {@code --advertise}. The UAs know only the balancer's address. 500
 * calls are held up, the node that relayed their INVITEs (and so wrote
 * their Record-Route) is SIGKILLed, then every caller hangs up along its
 * route set: each BYE must reach the callee and be answered. Under the
 * balancer's {@code owner} policy every INVITE to one callee meets the
 * same node, so the test reads which one from the callee's message trace;
 * a fixed choice would kill a node that carried no call two times in three.
 */
@Timeout(300)
class HostsClusterTest {

    private static final int CALLS = 500;

    @TempDir
    Path work;

    @Test
    void callsHeldAcrossANodeKillAllHangUpWithTheUasKnowingOnlyTheBalancer() throws Exception {
        try (NamespaceHosts bed = NamespaceHosts.random(6)) {
            NamespaceHosts.Host lbHost = bed.host(1);
            List<NamespaceHosts.Host> nodeHosts = List.of(bed.host(2), bed.host(3), bed.host(4));
            NamespaceHosts.Host calleeHost = bed.host(5);
            NamespaceHosts.Host callerHost = bed.host(6);
            String lb = lbHost.address() + ":5060";
            String secret = "hosts-" + UUID.randomUUID();
            List<NodeProcess> processes = new ArrayList<>();
            try {
                for (NamespaceHosts.Host h : nodeHosts) {
                    List<String> args = new ArrayList<>(List.of("node", "--dht", "hazelcast", "--sip", "0.0.0.0:5060",
                            "--advertise", h.address(), "--overlay", h.address() + ":7001", "--replicas", "2",
                            "--cluster-secret", secret, "--domain", "p2psip.test", "--alias", lb,
                            "--record-route", lb, "--auth", "none"));
                    if (h != nodeHosts.get(0)) {
                        args.addAll(List.of("--bootstrap", nodeHosts.get(0).address() + ":7001"));
                    }
                    NodeProcess p = NodeProcess.startOn(h, args.toArray(String[]::new));
                    processes.add(p);
                    p.awaitOutput("listening on sip:" + h.address() + ":5060", Duration.ofSeconds(90));
                }
                NodeProcess balancer = NodeProcess.startOn(lbHost, "lb", "--sip", "0.0.0.0:5060", "--advertise",
                        lbHost.address(), "--nodes", String.join(",", nodeHosts.stream().map(h -> h.address() + ":5060")
                                .toList()), "--probe-interval", "1000", "--probe-failures", "3");
                processes.add(balancer);
                balancer.awaitOutput("listening on sip:", Duration.ofSeconds(60));

                Sipp.Result registered = Sipp.registerOneOn(calleeHost, work, "callee", 5070, lb);
                assertEquals(1, registered.successful(), registered.toString());

                Process uas = Sipp.startBackground(calleeHost, work, "-sf",
                        Path.of("sipp", "uas-record-route.xml").toAbsolutePath().toString(),
                        "-i", calleeHost.address(), "-p", "5070",
                        "-trace_err", "-error_file", work.resolve("uas-errors.log").toString(),
                        "-trace_msg", "-message_file", work.resolve("uas-messages.log").toString());
                try {
                    Path stats = work.resolve("hosts-stats.csv");
                    CompletableFuture<Sipp.Result> calls = CompletableFuture.supplyAsync(() -> {
                        try {
                            return Sipp.run(callerHost, work, Duration.ofSeconds(150),
                                    "-sf", Path.of("sipp", "call-hold.xml").toAbsolutePath().toString(),
                                    "-s", "callee", "-m", Integer.toString(CALLS), "-r", "50",
                                    "-l", Integer.toString(CALLS), "-d", "25000",
                                    "-i", callerHost.address(), "-p", "5080",
                                    "-trace_stat", "-stf", stats.toString(), "-fd", "1",
                                    "-trace_err", "-error_file", work.resolve("hosts-errors.log").toString(), lb);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    });
                    awaitCurrentCalls(stats, CALLS, Duration.ofSeconds(90));
                    int relay = invitesRelayedMostBy(work.resolve("uas-messages.log"), nodeHosts);
                    processes.get(relay).kill();

                    Sipp.Result result = calls.get(200, TimeUnit.SECONDS);
                    String why = result + "\n" + Sipp.errorExcerpt(work.resolve("hosts-errors.log"), 30)
                            + "\ncallee:\n" + Sipp.errorExcerpt(work.resolve("uas-errors.log"), 10);
                    System.out.println("[hosts cluster] " + result.successful() + " of " + CALLS
                            + " calls hung up with 200 after node " + (relay + 1) + ", their relay, was killed");
                    assertEquals(CALLS, result.successful(), why);
                    assertEquals(0, result.failed(), why);
                    assertTrue(uas.isAlive(), "the SIPp uas died during the run");
                } finally {
                    uas.destroy();
                    uas.waitFor(5, TimeUnit.SECONDS);
                }
            } finally {
                for (NodeProcess p : processes) {
                    p.close();
                }
            }
        }
    }

    /**
     * The index of the node whose Via the most INVITEs in a SIPp message
     * trace carry; fails when no INVITE names any of them.
     */
    static int invitesRelayedMostBy(Path trace, List<NamespaceHosts.Host> nodes) throws IOException {
        int[] counts = new int[nodes.size()];
        for (String message : Files.readString(trace, StandardCharsets.ISO_8859_1).split("\n-{20,}")) {
            if (!message.contains("\nINVITE ")) {
                continue;
            }
            for (int i = 0; i < nodes.size(); i++) {
                if (message.contains("SIP/2.0/UDP " + nodes.get(i).address() + ":5060;")) {
                    counts[i]++;
                }
            }
        }
        int most = 0;
        for (int i = 1; i < counts.length; i++) {
            if (counts[i] > counts[most]) {
                most = i;
            }
        }
        assertTrue(counts[most] > 0, "no INVITE in the callee's trace came through a node: " + Arrays.toString(counts));
        return most;
    }

    /** Polls SIPp's statistics file until {@code count} calls are up at once. */
    static void awaitCurrentCalls(Path stats, int count, Duration timeout) {
        String[] last = {""};
        Eventually.until(() -> {
            List<String> lines;
            try {
                lines = Files.exists(stats) ? Files.readAllLines(stats, StandardCharsets.ISO_8859_1) : List.of();
            } catch (IOException e) {
                return false;
            }
            if (lines.size() < 2) {
                return false;
            }
            List<String> names = Arrays.asList(lines.get(0).split(";"));
            String[] values = lines.get(lines.size() - 1).split(";");
            int at = names.indexOf("CurrentCall");
            if (at < 0 || at >= values.length) {
                return false;
            }
            last[0] = values[at].trim();
            return Long.parseLong(last[0]) >= count;
        }, timeout, () -> count + " calls up at once (last CurrentCall " + last[0] + ")");
    }
}
