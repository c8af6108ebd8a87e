package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.testing.FreePorts;

/**
 * A hazelcast node that cannot join says why in one line and exits non-zero
 * within a bounded time, as an operator's script needs.
 */
@Timeout(120)
class HazelcastNodeStartTest {

    @Test
    void unreachableSeedIsAOneLineErrorAndNonZeroExit() throws Exception {
        int deadSeed = FreePorts.udpAndTcp();
        try (NodeProcess node = NodeProcess.start("node", "--dht", "hazelcast",
                "--sip", "127.0.0.1:" + FreePorts.udpAndTcp(), "--overlay", "127.0.0.1:" + FreePorts.udpAndTcp(),
                "--bootstrap", "127.0.0.1:" + deadSeed)) {
            int exit = node.awaitExit(Duration.ofSeconds(60));
            assertNotEquals(0, exit);
            assertOneLineError(node.output(), "127.0.0.1:" + deadSeed);
        }
    }

    @Test
    void malformedBootstrapAddressIsAOneLineErrorAndNonZeroExit() throws Exception {
        try (NodeProcess node = NodeProcess.start("node", "--dht", "hazelcast",
                "--sip", "127.0.0.1:" + FreePorts.udpAndTcp(), "--overlay", "127.0.0.1:" + FreePorts.udpAndTcp(),
                "--bootstrap", "127.0.0.1:notaport")) {
            int exit = node.awaitExit(Duration.ofSeconds(30));
            assertNotEquals(0, exit);
            assertOneLineError(node.output(), "notaport");
        }
    }

    @Test
    void clusterNameKeepsNodesOfAnotherClusterOut() throws Exception {
        int seedOverlay = FreePorts.udpAndTcp();
        try (NodeProcess seed = NodeProcess.start("node", "--dht", "hazelcast", "--cluster-name", "blue",
                "--sip", "127.0.0.1:" + FreePorts.udpAndTcp(), "--overlay", "127.0.0.1:" + seedOverlay)) {
            seed.awaitOutput("listening", Duration.ofSeconds(60));
            try (NodeProcess stranger = NodeProcess.start("node", "--dht", "hazelcast", "--cluster-name", "green",
                    "--sip", "127.0.0.1:" + FreePorts.udpAndTcp(), "--overlay", "127.0.0.1:" + FreePorts.udpAndTcp(),
                    "--bootstrap", "127.0.0.1:" + seedOverlay)) {
                assertNotEquals(0, stranger.awaitExit(Duration.ofSeconds(60)));
                assertOneLineError(stranger.output(), "green");
            }
            assertTrue(seed.isAlive());
        }
    }

    /** The last line names the problem; nothing looks like a stack trace. */
    private static void assertOneLineError(List<String> output, String mentioned) {
        assertFalse(output.isEmpty(), "the node printed nothing");
        String last = output.get(output.size() - 1);
        assertTrue(last.contains(mentioned), "the error should name " + mentioned + ": " + output);
        assertEquals(List.of(), output.stream().filter(l -> l.startsWith("\tat ") || l.contains("Exception:")).toList(),
                "a stack trace reached the operator: " + output);
    }
}
