package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.servlet.netns.NamespaceHosts;

/**
 * {@code cluster --netns}: each node on a host of its own, phones on client
 * hosts that know only the balancer's address. A phone registers from one
 * client host, a node is SIGKILLed, and once the balancer has taken it out,
 * calls from the other client host all reach the phone (the default two
 * copies keep its binding); when the cluster stops, its namespaces are gone.
 *
 * <p>The calls wait for the balancer's verdict because of a limit of
 * SIPp's callee. In the seconds before the probes condemn the dead node, the
 * cluster is slow (what the balancer still sends the dead node comes back
 * as retransmissions), and a node's INVITE to the callee is
 * sometimes sent again by its Timer A before the 180 reaches it. A UA's
 * INVITE server transaction absorbs such a copy (RFC 6026 §7.1); SIPp
 * recognises a retransmission only by the message it sent last after the
 * request, which after a 180 and a 200 is gone, so it ended those calls and
 * their BYEs went unanswered (seen in its message trace). The kill window
 * itself is {@code ClusterAcceptanceTest}'s subject, with a bound on
 * failures.
 */
@Timeout(300)
class ClusterNetnsTest {

    private static final int CALLS = 200;
    private static final Pattern HOST = Pattern.compile("host (\\w+) (\\S+) \\(ip netns exec (\\S+) \\.\\.\\.\\)");
    private static final Pattern NODE = Pattern.compile("node (\\d+) pid (\\d+) sip:(\\S+)");

    @TempDir
    Path work;

    @Test
    void nodesOnHostsOfTheirOwnCarryCallsBetweenClientHostsThroughANodeKill() throws Exception {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        String prefix = "10." + (100 + r.nextInt(100)) + "." + r.nextInt(250);
        String lb = prefix + ".1:5060";
        Map<String, NamespaceHosts.Host> hosts = new HashMap<>();
        try (NodeProcess cluster = NodeProcess.start(Map.of("P2PSIP_CLUSTER_SECRET", "netns-" + UUID.randomUUID()),
                "cluster", "--dht", "hazelcast", "--nodes", "3", "--sip", "127.0.0.1:5060", "--netns", prefix,
                "--auth", "none", "--probe-interval", "1000", "--probe-failures", "3")) {
            cluster.awaitOutput("p2psip cluster ready", Duration.ofSeconds(150));
            Map<Integer, Long> pids = new HashMap<>();
            Map<Integer, String> addresses = new HashMap<>();
            for (String line : cluster.output()) {
                Matcher h = HOST.matcher(line);
                if (h.find()) {
                    hosts.put(h.group(1), new NamespaceHosts.Host(h.group(1), h.group(3), h.group(2)));
                }
                Matcher n = NODE.matcher(line);
                if (n.find()) {
                    int number = Integer.parseInt(n.group(1));
                    pids.put(number, Long.parseLong(n.group(2)));
                    addresses.put(number, n.group(3));
                    assertEquals(prefix + "." + (10 + number) + ":" + (5060 + number), n.group(3),
                            "node " + number + " listens on its own host: " + line);
                }
            }
            assertEquals(5, hosts.size(), "three node hosts and two client hosts: " + cluster.output());
            NamespaceHosts.Host caller = hosts.get("c1");
            NamespaceHosts.Host callee = hosts.get("c2");

            Sipp.Result registered = Sipp.registerOneOn(callee, work, "callee", 5070, lb);
            assertEquals(1, registered.successful(), registered.toString());
            ProcessHandle victim = ProcessHandle.of(pids.get(2)).orElseThrow();
            assertTrue(victim.destroyForcibly(), "SIGKILL sent");
            victim.onExit().get(10, TimeUnit.SECONDS);
            cluster.awaitOutput("node " + addresses.get(2) + " is down", Duration.ofSeconds(15));

            Process uas = Sipp.startBackground(callee, work, "-sf",
                    Path.of("sipp", "uas-record-route.xml").toAbsolutePath().toString(),
                    "-i", callee.address(), "-p", "5070");
            try {
                Sipp.Result calls = Sipp.run(caller, work, Duration.ofSeconds(120),
                        "-sf", Path.of("sipp", "call-hold.xml").toAbsolutePath().toString(), "-s", "callee",
                        "-m", Integer.toString(CALLS), "-r", "50", "-d", "0", "-i", caller.address(), "-p", "5080",
                        "-trace_err", "-error_file", work.resolve("netns-errors.log").toString(), lb);
                String why = calls + "\n" + Sipp.errorExcerpt(work.resolve("netns-errors.log"), 30);
                assertEquals(CALLS, calls.successful(), why);
                assertEquals(0, calls.failed(), why);
            } finally {
                uas.destroy();
                uas.waitFor(5, TimeUnit.SECONDS);
            }
        }
        String namespaces = namespaces();
        for (NamespaceHosts.Host h : hosts.values()) {
            assertFalse(namespaces.contains(h.namespace()), h.namespace() + " outlived the cluster: " + namespaces);
        }
    }

    private static String namespaces() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(10, TimeUnit.SECONDS);
        return out;
    }
}
