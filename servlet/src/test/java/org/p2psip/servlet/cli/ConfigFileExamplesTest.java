package org.p2psip.servlet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.p2psip.balancer.BalancingPolicy;
import org.p2psip.core.net.HostPort;

import picocli.CommandLine;

/**
 * The example files in {@code docs/examples} parse into the node and the
 * balancer they describe, and the systemd units in {@code docs/systemd}
 * run them, so the documentation cannot drift from what the commands take.
 */
class ConfigFileExamplesTest {

    /** Surefire runs in the module's directory; the docs are beside the modules. */
    private static final Path DOCS = Path.of("..", "docs");

    private static <T> T parsed(String command, String file) {
        Path example = DOCS.resolve("examples").resolve(file);
        assertTrue(Files.isRegularFile(example), example.toAbsolutePath() + " is missing");
        CommandLine cl = P2psip.commandLine();
        cl.parseArgs(command, "--config", example.toString());
        return cl.getSubcommands().get(command).getCommand();
    }

    @Test
    void theNodeExampleIsAChordNodeJoiningTwoOthersBehindTheBalancer() {
        NodeCommand node = parsed("node", "node.conf");

        assertEquals("chord", node.dht);
        assertEquals(new HostPort("10.0.0.3", 7001), node.overlay);
        assertEquals(List.of(new HostPort("10.0.0.2", 7001), new HostPort("10.0.0.4", 7001)), node.bootstrap);
        assertEquals(2, node.replicas);
        assertEquals(new HostPort("0.0.0.0", 5060), node.sip);
        assertEquals(new HostPort("10.0.0.3", 0), node.advertise);
        assertEquals(List.of("p2psip.test"), node.domains);
        assertEquals(List.of(new HostPort("10.0.0.1", 5060)), node.aliases);
        assertEquals(new HostPort("10.0.0.1", 5060), node.recordRoute);
        assertNull(node.clusterSecret, "the example leaves the secret to the environment");
        assertEquals(new HostPort("127.0.0.1", 8001), node.admin);
        assertEquals(new HostPort("10.0.0.3", 9100), node.metrics);
        assertEquals(Path.of("/var/log/p2psip/access.log"), node.accessLog);
        assertEquals("info", node.logLevel.level);
        assertEquals(List.of("10.0.0.9"), node.protection.sources.trusted);
        assertEquals(1_000_000, node.protection.maxRegistrations);
        assertEquals(200, node.protection.overloadDelayMillis);
    }

    @Test
    void theLbExampleBalancesTheThreeNodes() {
        LbCommand lb = parsed("lb", "lb.conf");

        assertEquals(new HostPort("0.0.0.0", 5060), lb.sip);
        assertEquals(new HostPort("10.0.0.1", 0), lb.advertise);
        assertEquals(List.of(new HostPort("10.0.0.2", 5060), new HostPort("10.0.0.3", 5060),
                new HostPort("10.0.0.4", 5060)), lb.nodes);
        assertEquals(BalancingPolicy.parse("owner"), lb.policy);
        assertNull(lb.tls.address, "TLS is commented out");
        assertEquals(new HostPort("10.0.0.1", 9100), lb.metrics);
        assertEquals("info", lb.logLevel.level);
        assertEquals(List.of("10.0.0.9"), lb.sources.trusted);
        assertEquals(10_000, lb.sources.rate);
        assertEquals(20_000, lb.sources.burst);
        assertEquals(60_000, lb.connections.max);
    }

    @Test
    void theSystemdUnitsRunTheCommandsWithTheirFiles() throws IOException {
        assertTrue(Files.readString(DOCS.resolve("systemd").resolve("p2psip-node.service"))
                .contains("\nExecStart=/opt/p2psip/p2psip node --config /etc/p2psip/node.conf\n"));
        assertTrue(Files.readString(DOCS.resolve("systemd").resolve("p2psip-lb.service"))
                .contains("\nExecStart=/opt/p2psip/p2psip lb --config /etc/p2psip/lb.conf\n"));
    }
}
