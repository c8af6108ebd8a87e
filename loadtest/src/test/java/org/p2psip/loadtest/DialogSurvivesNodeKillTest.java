package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.testing.FreePorts;

/**
 * Calls outlive the node that set them up: 300 calls through the balancer
 * and a 3-node cluster are held open, one node is SIGKILLed, and then
 * every caller hangs up along its route set (SIPp's {@code rrs}). The
 * cluster record-routes through the balancer, so each BYE reaches a live
 * node that routes it to the callee; a route set naming the dead node would
 * leave a third of them unanswered.
 */
@Timeout(300)
class DialogSurvivesNodeKillTest {

    private static final int CALLS = 300;

    @TempDir
    Path work;

    @Test
    void everyByeOfCallsHeldAcrossANodeKillGets200() throws Exception {
        try (AuthenticatedCluster cluster = AuthenticatedCluster.startWithDefaults(work, "hazelcast", 3,
                "--probe-interval", "1000", "--probe-failures", "3")) {
            cluster.importUsers("held", 1);
            int uasPort = FreePorts.udpAndTcp();
            Process uas = Sipp.startBackground(work, "-sf", Path.of("sipp", "uas-record-route.xml").toAbsolutePath().toString(),
                    "-i", "127.0.0.1", "-p", Integer.toString(uasPort));
            try {
                String lb = "127.0.0.1:" + cluster.lbPort();
                Sipp.Result register = Sipp.registerOneWithPassword(work, "heldu0",
                        AuthenticatedCluster.password("heldu0"), "127.0.0.1:" + uasPort, lb);
                assertEquals(0, register.exitCode(), register.toString());

                Path stats = work.resolve("held-stats.csv");
                CompletableFuture<Sipp.Result> calls = CompletableFuture.supplyAsync(() -> {
                    try {
                        return Sipp.run(work, Duration.ofSeconds(150),
                                "-sf", Path.of("sipp", "call-hold.xml").toAbsolutePath().toString(),
                                "-s", "heldu0", "-m", Integer.toString(CALLS), "-r", "50", "-l", Integer.toString(CALLS),
                                "-d", "25000", "-i", "127.0.0.1", "-p", Integer.toString(FreePorts.udpAndTcp()),
                                "-trace_stat", "-stf", stats.toString(), "-fd", "1",
                                "-trace_err", "-error_file", work.resolve("held-errors.log").toString(), lb);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                HostsClusterTest.awaitCurrentCalls(stats, CALLS, Duration.ofSeconds(60));

                long victim = cluster.nodePids().get(2);
                ProcessHandle node = ProcessHandle.of(victim).orElseThrow();
                assertTrue(node.destroyForcibly(), "SIGKILL sent");
                node.onExit().get(10, TimeUnit.SECONDS);

                Sipp.Result result = calls.get(200, TimeUnit.SECONDS);
                String why = result + "\n" + Sipp.errorExcerpt(work.resolve("held-errors.log"), 30);
                assertEquals(CALLS, result.successful(), why);
                assertEquals(0, result.failed(), why);
                assertTrue(uas.isAlive(), "the SIPp uas died during the run");
            } finally {
                uas.destroy();
                uas.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }
}
