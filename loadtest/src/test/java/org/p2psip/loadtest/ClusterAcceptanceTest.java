package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Acceptance of the load balancer and {@code p2psip cluster} with real
 * processes and a client nobody here wrote: {@code cluster --dht hazelcast
 * --nodes 3} puts the balancer in front of three node JVMs that require
 * digest authentication, {@code p2psip user import} provisions the users,
 * and SIPp talks only to the balancer, which takes turns, so a nonce one
 * node issued is usually answered to another. Then one node is SIGKILLed
 * in the middle of a SIPp run, and finally SIGTERM must stop every process.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterAcceptanceTest {

    private static final int AORS = 10_000;

    @TempDir
    static Path work;

    private static AuthenticatedCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = AuthenticatedCluster.start(work, "hazelcast", 3, 2,
                // The defaults (1 s, 3 misses): on a starved 2-core machine a shorter fuse takes busy nodes
                // out, and every flap moves Call-IDs, so retransmissions meet a node without their transaction.
                "--probe-interval", "1000", "--probe-failures", "3");
        cluster.importUsers("bulk", AORS);
        cluster.importUsers("kill", 3000);
        cluster.importUsers("after", 2000);
        cluster.importUsers("callee", 1);
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void sippRegistersTenThousandProvisionedUsersWithDigestAndCallsThroughTheBalancerWithZeroFailures() throws Exception {
        Sipp.Result registers = cluster.registerRun("bulk", AORS, AuthenticatedCluster.ACCEPTANCE_RATE);
        assertEquals(0, registers.exitCode(), registers + cluster.unexpected("bulk"));
        assertEquals(AORS, registers.successful(), registers + cluster.unexpected("bulk"));
        assertEquals(0, registers.failed(), registers + cluster.unexpected("bulk"));

        Sipp.Result calls = cluster.callRun("calleeu0", 200, 50);
        assertEquals(0, calls.exitCode(), calls.toString());
        assertEquals(200, calls.successful(), calls.toString());
        assertEquals(0, calls.failed(), calls.toString());
    }

    @Test
    @Order(2)
    void sigkillOfOneNodeMidRunFailsOnlyWhatWasInFlightThenEverythingSucceedsAgain() throws Exception {
        int total = 3000;
        CompletableFuture<Sipp.Result> during = CompletableFuture.supplyAsync(() -> {
            try {
                return cluster.registerRun("kill", total, 200);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        // The middle of the run: once the 600th AOR of it is registered, read back through the balancer.
        awaitRegistered("killu600", Duration.ofSeconds(60));
        long victim = cluster.nodePids().get(2);
        ProcessHandle node = ProcessHandle.of(victim).orElseThrow();
        Instant killedAt = Instant.now();
        assertTrue(node.destroyForcibly(), "SIGKILL sent");
        node.onExit().get(10, TimeUnit.SECONDS);

        Sipp.Result mid = during.get(240, TimeUnit.SECONDS);
        assertEquals(total, mid.successful() + mid.failed(), mid.toString());
        // Only what was in flight to the dead node, or waiting on its share of the DHT while the
        // survivors noticed, may fail: a small fraction, not the third a dead node would otherwise take.
        assertTrue(mid.failed() <= total / 10, "too many failures around the kill: " + mid);
        System.out.println("[cluster acceptance] kill run: " + mid.successful() + " ok, " + mid.failed()
                + " failed of " + total + "; node 2 killed at " + killedAt);
        int lbPort = cluster.lbPort();
        cluster.process().awaitOutput("node 127.0.0.1:" + (lbPort + 2) + " is down", Duration.ofSeconds(10));
        cluster.process().awaitOutput("node 2 (pid " + victim + ", sip:127.0.0.1:" + (lbPort + 2) + ") exited",
                Duration.ofSeconds(10));

        Sipp.Result after = cluster.registerRun("after", 2000, 400);
        assertEquals(0, after.exitCode(), after + cluster.unexpected("after"));
        assertEquals(2000, after.successful(), after + cluster.unexpected("after"));
        assertEquals(0, after.failed(), after + cluster.unexpected("after"));
        Sipp.Result calls = cluster.callRun("calleeu0", 100, 50);
        assertEquals(0, calls.exitCode(), calls.toString());
        assertEquals(100, calls.successful(), calls.toString());
        assertEquals(0, calls.failed(), calls.toString());
    }

    @Test
    @Order(3)
    void sigtermStopsTheBalancerAndEveryNode() throws Exception {
        cluster.process().close();
        assertFalse(cluster.process().isAlive());
        Instant deadline = Instant.now().plusSeconds(20);
        for (long pid : cluster.nodePids().values()) {
            while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                assertTrue(Instant.now().isBefore(deadline), "node pid " + pid + " outlived the cluster");
                TimeUnit.MILLISECONDS.sleep(50);
            }
        }
        try (java.net.DatagramSocket again = new java.net.DatagramSocket(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), cluster.lbPort()))) {
            assertEquals(cluster.lbPort(), again.getLocalPort(), "the balancer's port is free again");
        }
    }

    /** Polls the user's bindings through the balancer, with its password, until one is listed. */
    private static void awaitRegistered(String user, Duration timeout) throws Exception {
        Instant deadline = Instant.now().plus(timeout);
        try (SipUdpClient client = new SipUdpClient()) {
            while (Instant.now().isBefore(deadline)) {
                String answer = client.registerWithPassword(cluster.lbPort(), user, AuthenticatedCluster.password(user),
                        null, "probe-" + UUID.randomUUID(), null);
                if (SipUdpClient.statusOf(answer) == 200 && !SipUdpClient.contactsOf(answer).isEmpty()) {
                    return;
                }
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
        throw new AssertionError(user + " was not registered within " + timeout);
    }
}
