package org.p2psip.servlet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.FreePorts;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;

import picocli.CommandLine;

class P2psipTest {

    private record Run(int exit, String out, String err) {
        List<String> errLines() {
            return err.lines().filter(l -> !l.isBlank()).toList();
        }
    }

    private static Run run(String... args) {
        CommandLine cl = P2psip.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void anAuthModeOtherThanRequiredOrNoneIsAOneLineUsageError() {
        Run r = run("node", "--sip", "127.0.0.1:5060", "--auth", "maybe");

        assertEquals(2, r.exit());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("required or none"), r.err());
    }

    @Test
    void unknownFlagIsOneLineOnStderrWithNonZeroExit() {
        Run r = run("node", "--sip", "127.0.0.1:5060", "--frobnicate");

        assertTrue(r.exit() != 0);
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("--frobnicate"), r.err());
    }

    @Test
    void missingSipIsOneLineError() {
        Run r = run("node");

        assertTrue(r.exit() != 0);
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("--sip"), r.err());
    }

    @Test
    void badHostPortIsOneLineError() {
        Run r = run("node", "--sip", "localhost");

        assertTrue(r.exit() != 0);
        assertEquals(1, r.errLines().size(), r.err());
    }

    @Test
    void aWildcardBindWithoutAdvertiseIsOneLineNamingTheFlag() throws Exception {
        int port;
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            port = probe.getLocalPort();
        }
        Run r = run("node", "--sip", "0.0.0.0:" + port);

        assertEquals(1, r.exit(), r.err());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("--advertise"), r.err());
    }

    @Test
    void aWildcardAdvertisedAddressIsOneLineError() {
        for (String bad : new String[] {"0.0.0.0", "0.0.0.0:5060", "[::]:5060", "host:99999"}) {
            Run r = run("node", "--sip", "127.0.0.1:5060", "--advertise", bad);

            assertTrue(r.exit() != 0, bad);
            assertEquals(1, r.errLines().size(), r.err());
            assertTrue(r.err().contains("--advertise"), r.err());
        }
    }

    @Test
    void unknownDhtBackendListsTheAvailableOnes() {
        Run r = run("node", "--sip", "127.0.0.1:5060", "--dht", "pastry");

        assertTrue(r.exit() != 0);
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("pastry") && r.err().contains("local"), r.err());
    }

    @Test
    void inconsistentRegistrarPolicyIsOneLineError() {
        Run r = run("node", "--sip", "127.0.0.1:5060", "--min-expires", "500", "--default-expires", "100");

        assertTrue(r.exit() != 0);
        assertEquals(1, r.errLines().size(), r.err());
    }

    @Test
    void busyUdpPortIsOneLineErrorWithoutStackTrace() throws Exception {
        try (DatagramSocket taken = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            Run r = run("node", "--sip", "127.0.0.1:" + taken.getLocalPort());

            assertEquals(1, r.exit());
            assertEquals(1, r.errLines().size(), r.err());
            assertTrue(r.err().contains("UDP") && r.err().contains("in use"), r.err());
        }
    }

    @Test
    void busyTcpPortIsOneLineError() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Run r = run("node", "--sip", "127.0.0.1:" + taken.getLocalPort());

            assertEquals(1, r.exit());
            assertEquals(1, r.errLines().size(), r.err());
            assertTrue(r.err().contains("in use"), r.err());
        }
    }

    @Test
    void aBusyMetricsPortIsOneLineErrorNamingTheFlag() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Run r = run("node", "--sip", "127.0.0.1:" + FreePorts.udpAndTcp(), "--metrics",
                    "127.0.0.1:" + taken.getLocalPort());

            assertEquals(1, r.exit(), r.err());
            assertEquals(1, r.errLines().size(), r.err());
            assertTrue(r.err().contains("--metrics") && r.err().contains("127.0.0.1:" + taken.getLocalPort())
                    && r.err().contains("in use"), r.err());
        }
    }

    @Test
    void aMetricsAddressWithoutAPortIsOneLineUsageError() {
        Run r = run("node", "--sip", "127.0.0.1:5060", "--metrics", "localhost");

        assertEquals(2, r.exit(), r.err());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("--metrics"), r.err());
    }

    @Test
    void nodeHelpExplainsTheMetricsEndpoint() {
        String help = run("node", "--help").out();

        assertTrue(help.contains("--metrics=HOST:PORT"), help);
        String flat = help.replaceAll("\\s+", " ");
        assertTrue(flat.contains("SIP requests by method"), help);
        assertTrue(flat.contains("DHT operation times"), help);
    }

    @Test
    void anUnknownLogLevelIsOneLineNamingTheLevels() {
        for (String[] args : List.of(new String[] {"node", "--sip", "127.0.0.1:5999", "--log-level", "loud"},
                new String[] {"lb", "--sip", "127.0.0.1:5999", "--nodes", "127.0.0.1:5060", "--log-level", "loud"})) {
            Run r = run(args);

            assertNotEquals(0, r.exit(), r.err());
            assertEquals(1, r.errLines().size(), r.err());
            assertTrue(r.err().contains("unknown log level 'loud' (one of trace, debug, info, warn, error)"), r.err());
        }
    }

    @Test
    void lbHelpExplainsItsMetricsEndpoint() {
        String flat = run("lb", "--help").out().replaceAll("\\s+", " ");

        assertTrue(flat.contains("--metrics=HOST:PORT"), flat);
        assertTrue(flat.contains("client requests sent to each node"), flat);
    }

    @Test
    void everyCommandHasHelp() {
        for (String[] args : List.of(new String[] {"--help"}, new String[] {"node", "--help"})) {
            Run r = run(args);
            assertEquals(0, r.exit());
            assertTrue(r.out().contains("Usage:"), r.out());
        }
        assertTrue(run("node", "--help").out().contains("--max-contacts"));
    }

    /** A bare % in a description is a format error picocli reports on stderr and then prints the text raw. */
    @Test
    void everyCommandsHelpFormatsWithoutAWarning() {
        List<CommandLine> commands = new ArrayList<>();
        collect(P2psip.commandLine(), commands);
        PrintStream stderr = System.err;
        ByteArrayOutputStream warnings = new ByteArrayOutputStream();
        System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
        try {
            for (CommandLine command : commands) {
                assertTrue(command.getUsageMessage().contains("Usage:"), command.getCommandName());
            }
        } finally {
            System.setErr(stderr);
        }
        String printed = warnings.toString(StandardCharsets.UTF_8);
        assertTrue(commands.size() > 10, commands.size() + " commands");
        assertFalse(printed.contains("Could not format"), printed);
    }

    private static void collect(CommandLine command, List<CommandLine> into) {
        into.add(command);
        command.getSubcommands().forEach((name, sub) -> {
            if (sub.getCommandName().equals(name)) {
                collect(sub, into);
            }
        });
    }

    @Test
    void versionIsPrinted() {
        Run r = run("--version");

        assertEquals(0, r.exit());
        assertTrue(r.out().startsWith("p2psip "), r.out());
    }

    @Test
    void nodeProcessSaysStartedThenReadyOnceWarmServesAndStopsOnSigterm() throws Exception {
        int port = FreePorts.udpAndTcp();
        Path logback = Path.of(P2psipTest.class.getResource("/logback.xml").toURI());
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dlogback.configurationFile=" + logback,
                "-cp", System.getProperty("java.class.path"),
                P2psip.class.getName(), "node", "--dht", "local", "--sip", "127.0.0.1:" + port);
        Process p = pb.start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (java.io.IOException e) {
                lines.add("read failed: " + e);
            }
        });
        reader.start();
        try {
            List<String> warnings = new ArrayList<>();
            String first = lines.poll(30, TimeUnit.SECONDS);
            while (first != null && first.contains(" WARN ")) {
                warnings.add(first);
                first = lines.poll(30, TimeUnit.SECONDS);
            }
            assertTrue(first != null && first.contains("p2psip node started on sip:127.0.0.1:" + port + " dht=local"),
                    String.valueOf(first));
            assertTrue(warnings.stream().anyMatch(w -> w.contains("--dht local without --data-dir")
                    && w.contains("a restart forgets them")), "a node that keeps nothing says so: " + warnings);
            String second = lines.poll(60, TimeUnit.SECONDS);
            assertTrue(second != null && second.contains("p2psip node listening on sip:127.0.0.1:" + port
                    + " (udp, tcp) dht=local") && second.contains(" ready in ") && second.contains("warm-up: "),
                    "the line operators wait for comes once the node has warmed up: " + second);

            try (UdpPeer peer = new UdpPeer()) {
                String self = "sip:127.0.0.1:" + port;
                String callId = "cli-" + UUID.randomUUID();
                peer.send(RequestText.standard("OPTIONS", self, peer.hostPort(), "sip:probe@example.com", self,
                        callId, 1).text(), new HostPort("127.0.0.1", port));
                Optional<SipText> ok = peer.await(SipText::isResponse, Duration.ofSeconds(10));
                assertEquals(200, ok.map(SipText::status).orElse(-1));
            }

            p.destroy();
            assertTrue(p.waitFor(20, TimeUnit.SECONDS), "node stops on SIGTERM");
            reader.join(5000);
            List<String> rest = new ArrayList<>();
            lines.drainTo(rest);
            assertTrue(rest.stream().noneMatch(l -> l.contains("Exception") || l.contains("ERROR")), rest.toString());
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void extraSubcommandsPlugInThroughTheServiceLoader() {
        assertTrue(P2psip.commandLine().getSubcommands().containsKey("ping-test"));
        assertEquals(7, run("ping-test").exit());
    }
}
