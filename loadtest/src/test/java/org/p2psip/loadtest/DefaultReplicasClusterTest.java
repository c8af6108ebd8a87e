package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code cluster --nodes 3} with its defaults keeps every registration
 * reachable when any one node is SIGKILLed: it keeps two copies of each
 * AOR's bindings once there are two nodes to hold them. SIPp registers
 * without retrying; after the balancer has noticed the dead node, each
 * AOR is looked up once through it and the misses are counted.
 */
@Timeout(300)
class DefaultReplicasClusterTest {

    private static final int AORS = 300;

    @TempDir
    Path work;

    @ParameterizedTest(name = "{0}, node {1} killed")
    @CsvSource({"hazelcast, 1", "chord, 2"})
    void everyAorSurvivesTheKillOfAnyOneNodeWithDefaultReplicas(String dht, int victimNumber) throws Exception {
        try (AuthenticatedCluster cluster = AuthenticatedCluster.startWithDefaults(work, dht, 3,
                "--probe-interval", "1000", "--probe-failures", "3")) {
            assertTrue(cluster.process().output().stream().anyMatch(l -> l.contains("replicas=2")),
                    String.join("\n", cluster.process().output()));
            cluster.importUsers("keep", AORS);
            Sipp.Result registered = cluster.registerRun("keep", AORS, 100);
            assertEquals(AORS, registered.successful(), registered + cluster.unexpected("keep"));

            long victim = cluster.nodePids().get(victimNumber);
            ProcessHandle node = ProcessHandle.of(victim).orElseThrow();
            assertTrue(node.destroyForcibly(), "SIGKILL sent");
            node.onExit().get(10, TimeUnit.SECONDS);
            cluster.process().awaitOutput("node 127.0.0.1:" + (cluster.lbPort() + victimNumber) + " is down",
                    Duration.ofSeconds(15));

            List<String> missing = new ArrayList<>();
            try (SipUdpClient client = new SipUdpClient()) {
                for (int i = 0; i < AORS; i++) {
                    String user = "keepu" + i;
                    String answer = client.registerWithPassword(cluster.lbPort(), user,
                            AuthenticatedCluster.password(user), null, "fetch-" + UUID.randomUUID(), null);
                    if (SipUdpClient.statusOf(answer) != 200 || SipUdpClient.contactsOf(answer).isEmpty()) {
                        missing.add(user + " " + answer.lines().findFirst().orElse(""));
                    }
                }
            }
            assertEquals(List.of(), missing, missing.size() + " of " + AORS + " AORs unreachable after node "
                    + victimNumber + " was killed");
        }
    }
}
