package org.p2psip.servlet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.guard.SourceLimits;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.cli.LbCommandTest.Run;

import picocli.CommandLine;

/** The {@code cluster} command's refusals; starting and stopping real clusters is tested in loadtest. */
class ClusterCommandTest {

    @Test
    void helpNamesEveryFlag() {
        Run r = LbCommandTest.run("cluster", "--help");

        assertEquals(0, r.exit(), r.err());
        for (String flag : new String[] {"--dht", "--nodes", "--sip", "--overlay-base", "--replicas", "--policy"}) {
            assertTrue(r.out().contains(flag), flag + " missing from\n" + r.out());
        }
    }

    @Test
    void twoCopiesByDefaultOnceThereAreTwoNodesToHoldThem() {
        assertEquals(1, parsed("--dht", "local", "--nodes", "1", "--sip", "127.0.0.1:5060").replicas());
        assertEquals(2, parsed("--dht", "hazelcast", "--nodes", "2", "--sip", "127.0.0.1:5060").replicas());
        assertEquals(2, parsed("--dht", "chord", "--nodes", "5", "--sip", "127.0.0.1:5060").replicas());
        assertEquals(1, parsed("--dht", "chord", "--nodes", "5", "--sip", "127.0.0.1:5060", "--replicas", "1")
                .replicas());
    }

    @Test
    void moreCopiesThanNodesIsOneLine() {
        Run r = LbCommandTest.run("cluster", "--dht", "shared-local", "--nodes", "2", "--sip", "127.0.0.1:5060",
                "--replicas", "3");

        assertNotEquals(0, r.exit());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("--replicas 3"), r.err());
    }

    @Test
    void nodeNGetsTheMetricsPortBasePlusNMinusOneOnItsHost() {
        ClusterCommand command = parsed("--dht", "chord", "--nodes", "3", "--sip", "127.0.0.1:5060",
                "--metrics-base", "9100");

        assertEquals(Optional.of(new HostPort("127.0.0.1", 9100)), command.nodeMetrics(1));
        assertEquals(Optional.of(new HostPort("127.0.0.1", 9102)), command.nodeMetrics(3));
    }

    @Test
    void nodeNListensForTlsAtTheTlsBasePlusNMinusOneOrItsSipPortPlusAThousand() {
        ClusterCommand based = parsed("--dht", "chord", "--nodes", "3", "--sip", "127.0.0.1:5060", "--tls",
                "127.0.0.1:5059", "--tls-base", "7061");
        ClusterCommand unbased = parsed("--dht", "chord", "--nodes", "3", "--sip", "127.0.0.1:5060", "--tls",
                "127.0.0.1:5059");

        assertEquals(Optional.of(new HostPort("127.0.0.1", 7061)), based.nodeTls(1));
        assertEquals(Optional.of(new HostPort("127.0.0.1", 7063)), based.nodeTls(3));
        assertEquals(Optional.of(new HostPort("127.0.0.1", 6062)), unbased.nodeTls(2));
    }

    @Test
    void nodeTlsPortsOverlappingTheSipPortsAreOneLine() {
        Run r = LbCommandTest.run("cluster", "--dht", "shared-local", "--nodes", "3", "--sip", "127.0.0.1:5060",
                "--tls", "127.0.0.1:5059", "--tls-base", "5062");

        assertNotEquals(0, r.exit());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("the nodes' TLS ports 5062..5064 overlap the cluster's SIP ports 5060..5063"),
                r.err());
    }

    @Test
    void aTlsBaseWithoutTlsIsOneLine() {
        Run r = LbCommandTest.run("cluster", "--dht", "shared-local", "--nodes", "1", "--sip", "127.0.0.1:5060",
                "--tls-base", "7061");

        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains("--tls-base need --tls HOST:PORT"), r.err());
    }

    @Test
    void metricsAreOffUnlessABaseIsGiven() {
        ClusterCommand command = parsed("--dht", "chord", "--nodes", "3", "--sip", "127.0.0.1:5060");

        assertEquals(Optional.empty(), command.nodeMetrics(1));
        assertTrue(LbCommandTest.run("cluster", "--help").out().contains("--metrics-base"));
    }

    @Test
    void nodeNKeepsItsValuesInADirectoryOfItsOwnUnderTheDataDir() {
        ClusterCommand command = parsed("--dht", "chord", "--nodes", "3", "--sip", "127.0.0.1:5060",
                "--data-dir", "/var/lib/p2psip", "--flush-count", "1000", "--flush-ms", "250");

        assertEquals(List.of("--flush-count", "1000", "--flush-ms", "250", "--data-dir",
                Path.of("/var/lib/p2psip", "node-2").toString()), command.dataDirFlags(2));
        assertEquals(List.of("--flush-count", "100", "--flush-ms", "1000"),
                parsed("--dht", "chord", "--nodes", "3", "--sip", "127.0.0.1:5060").dataDirFlags(1),
                "the flush policy goes to the nodes' accounting too");
    }

    @Test
    void aMetricsBaseThatLeavesTooFewPortsIsOneLine() {
        for (String base : new String[] {"65534", "-1"}) {
            Run r = LbCommandTest.run("cluster", "--dht", "shared-local", "--nodes", "3", "--sip", "127.0.0.1:5060",
                    "--metrics-base", base);

            assertNotEquals(0, r.exit(), base);
            assertEquals(1, r.errLines().size(), r.err());
            assertTrue(r.err().contains("--metrics-base"), r.err());
        }
    }

    @Test
    void everyNodeAccountsToTheSameDatabaseNamedInItsEnvironmentNotItsArguments() {
        String url = "jdbc:postgresql://10.0.0.9:5432/acct?user=p2psip&password=s3cr3t";
        ClusterCommand command = new ClusterCommand();
        CommandLine cl = new CommandLine(command);
        cl.parseArgs("--dht", "chord", "--nodes", "3", "--sip", "127.0.0.1:5060", "--acct-db", url,
                "--acct-registrations", "--acct-buffer", "5000");

        assertEquals(java.util.List.of("--acct-buffer", "5000", "--acct-registrations"),
                command.accounting.nodeFlags(cl));
        assertEquals(java.util.Map.of(AccountingOptions.ENV, url), command.accounting.nodeEnvironment());
    }

    @Test
    void registrationsWithoutAnAccountingDatabaseAreOneLine() {
        Run r = LbCommandTest.run("cluster", "--dht", "shared-local", "--nodes", "2", "--sip", "127.0.0.1:5060",
                "--acct-registrations");

        assertEquals(2, r.exit(), r.err());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("--acct-registrations needs --acct-db URL"), r.err());
    }

    private static ClusterCommand parsed(String... args) {
        ClusterCommand command = new ClusterCommand();
        new CommandLine(command).parseArgs(args);
        return command;
    }

    @Test
    void aNetnsPrefixThatIsNoSlash24OrClientsWithoutNetnsAreOneLine() {
        for (String[] args : new String[][] {
            {"cluster", "--dht", "shared-local", "--nodes", "2", "--sip", "127.0.0.1:5060", "--netns", "10.300.1"},
            {"cluster", "--dht", "shared-local", "--nodes", "2", "--sip", "127.0.0.1:5060", "--netns", "10.1.2.3"},
            {"cluster", "--dht", "shared-local", "--nodes", "2", "--sip", "127.0.0.1:5060", "--netns-clients", "3"},
            {"cluster", "--dht", "shared-local", "--nodes", "2", "--sip", "127.0.0.1:5060", "--netns", "10.1.2",
                "--netns-clients", "51"},
        }) {
            Run r = LbCommandTest.run(args);

            assertNotEquals(0, r.exit(), String.join(" ", args));
            assertEquals(1, r.errLines().size(), r.err());
            assertTrue(r.err().contains("--netns"), String.join(" ", args) + ": " + r.err());
        }
    }

    @Test
    void localBackendOnlyWithOneNode() {
        Run r = LbCommandTest.run("cluster", "--dht", "local", "--nodes", "3", "--sip", "127.0.0.1:5060");

        assertNotEquals(0, r.exit());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("--nodes 1"), r.err());
    }

    @Test
    void unknownBackendAndBadCountsAreOneLine() {
        for (String[] args : new String[][] {
            {"cluster", "--dht", "pastry", "--nodes", "2", "--sip", "127.0.0.1:5060"},
            {"cluster", "--dht", "local", "--nodes", "0", "--sip", "127.0.0.1:5060"},
            {"cluster", "--dht", "local", "--nodes", "1", "--sip", "127.0.0.1:65535"},
            {"cluster", "--dht", "local", "--nodes", "1"},
        }) {
            Run r = LbCommandTest.run(args);
            assertNotEquals(0, r.exit(), String.join(" ", args));
            assertEquals(1, r.errLines().size(), r.err());
            assertTrue(r.err().startsWith("p2psip cluster: "), r.err());
        }
    }

    @Test
    void busyBalancerPortFailsBeforeAnyNodeStarts() throws Exception {
        try (DatagramSocket taken = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            Run r = LbCommandTest.run("cluster", "--dht", "local", "--nodes", "1",
                    "--sip", "127.0.0.1:" + taken.getLocalPort());

            assertEquals(OneLineErrors.FAILURE, r.exit());
            assertEquals(1, r.errLines().size(), r.err());
            assertTrue(r.err().contains("in use"), r.err());
        }
    }

    /** The node process cannot bind its port: the cluster reports the node's own one-line error and exits 1. */
    @Test
    @Timeout(60)
    void aNodeThatFailsToStartFailsTheClusterWithItsError() throws Exception {
        int lbPort = freePortWithBusySuccessor();
        try (ServerSocket nodePortTaken = new ServerSocket()) {
            nodePortTaken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), lbPort + 1));
            Run r = LbCommandTest.run("cluster", "--dht", "local", "--nodes", "1", "--sip", "127.0.0.1:" + lbPort);

            assertEquals(OneLineErrors.FAILURE, r.exit(), r.out() + r.err());
            assertEquals(1, r.errLines().size(), r.err());
            assertTrue(r.err().contains("node 1") && r.err().contains("in use"), r.err());
        }
    }

    /** A port free on UDP and TCP whose next port is free on TCP too (the test takes it). */
    private static int freePortWithBusySuccessor() throws Exception {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port;
            try (ServerSocket probe = new ServerSocket()) {
                probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                port = probe.getLocalPort();
            }
            if (port >= 65534) {
                continue;
            }
            try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                 ServerSocket next = new ServerSocket()) {
                next.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port + 1));
                return port;
            } catch (java.io.IOException busy) {
                // try another
            }
        }
        throw new IllegalStateException("no suitable port pair on 127.0.0.1");
    }

    @Test
    void theBalancersWarmUpStaysUnderTheLimitItsOwnAddressIsHeldTo() {
        assertEquals(ClusterCommand.BALANCER_WARMUP_RATE, ClusterCommand.balancerWarmupRate(SourceLimits.DEFAULT),
                "four fifths of the default 5,000/s");
        assertEquals(ClusterCommand.BALANCER_WARMUP_RATE, ClusterCommand.balancerWarmupRate(SourceLimits.OFF));
        assertEquals(1_600, ClusterCommand.balancerWarmupRate(SourceLimits.DEFAULT.withRate(2_000, 4_000)),
                "under a lower --source-rate, four fifths of it");
        assertEquals(1, ClusterCommand.balancerWarmupRate(SourceLimits.DEFAULT.withRate(1, 1)));
    }
}
