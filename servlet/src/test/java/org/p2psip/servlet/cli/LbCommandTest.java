package org.p2psip.servlet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.tls.SelfSignedTls;

import picocli.CommandLine;

class LbCommandTest {

    record Run(int exit, String out, String err) {
        List<String> errLines() {
            return err.lines().filter(l -> !l.isBlank()).toList();
        }
    }

    static Run run(String... args) {
        CommandLine cl = P2psip.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void helpNamesEveryFlagAndExitsZero() {
        Run r = run("lb", "--help");

        assertEquals(0, r.exit(), r.err());
        for (String flag : new String[] {"--sip", "--nodes", "--policy", "--probe-interval", "--probe-failures",
            "--source-rate", "--source-burst", "--source-ban", "--trusted-source", "--idle-timeout",
            "--message-deadline", "--max-connections", "--max-connections-per-source", "--max-message-size", "--tls",
            "--tls-cert", "--tls-key", "--challenge-domain", "--digest-algorithms"}) {
            assertTrue(r.out().contains(flag), flag + " missing from\n" + r.out());
        }
        for (String defaultValue : new String[] {"Default: 5000.", "Default: 10000.", "Default: 30.", "Default: 300.",
            "Default: 10.", "Default: 16000.", "Default: 65535."}) {
            assertTrue(r.out().replaceAll("\\s+", " ").contains(defaultValue), defaultValue + " missing from\n"
                    + r.out());
        }
    }

    @Test
    void badAbuseAndTlsFlagsAreOneLineErrors(@TempDir Path dir) throws Exception {
        SelfSignedTls.PemFiles pem = SelfSignedTls.generate(List.of("127.0.0.1"), dir);
        String[] base = {"lb", "--sip", "127.0.0.1:5996", "--nodes", "127.0.0.1:5995"};
        for (String[] extra : new String[][] {
            {"--source-rate", "-1"},
            {"--source-burst", "0"},
            {"--source-ban", "-5"},
            {"--idle-timeout", "0"},
            {"--message-deadline", "0"},
            {"--max-connections", "0"},
            {"--max-connections-per-source", "0"},
            {"--max-message-size", "100"},
            {"--max-message-size", "70000"},
            {"--trusted-source", "10.0.0.1,gateway.example"},
            {"--tls", "127.0.0.1:5994"},
            {"--tls-cert", pem.certificate().toString(), "--tls-key", pem.key().toString()},
            {"--tls", "127.0.0.1:5994", "--tls-cert", dir.resolve("absent.pem").toString(), "--tls-key",
                pem.key().toString()},
            {"--tls", "127.0.0.1:5994", "--tls-cert", pem.certificate().toString(), "--tls-key",
                pem.certificate().toString()},
        }) {
            String[] args = new String[base.length + extra.length];
            System.arraycopy(base, 0, args, 0, base.length);
            System.arraycopy(extra, 0, args, base.length, extra.length);
            Run r = run(args);
            assertNotEquals(0, r.exit(), String.join(" ", args));
            assertEquals(1, r.errLines().size(), r.err());
            assertTrue(r.err().startsWith("p2psip lb: "), r.err());
        }
    }

    @Test
    void aWildcardBindWithoutAdvertiseIsOneLineNamingTheFlag() throws Exception {
        int port;
        try (java.net.DatagramSocket probe = new java.net.DatagramSocket(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0))) {
            port = probe.getLocalPort();
        }
        Run r = run("lb", "--sip", "0.0.0.0:" + port, "--nodes", "127.0.0.1:5995");

        assertEquals(1, r.exit(), r.err());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("--advertise"), r.err());
    }

    @Test
    void challengingAtTheEdgeWithoutTheClusterSecretIsOneLine() {
        Assumptions.assumeTrue(ClusterSecrets.resolve(null).isEmpty(), "this environment holds a cluster secret");
        Run r = run("lb", "--sip", "127.0.0.1:5060", "--nodes", "127.0.0.1:5061", "--challenge-domain",
                "example.com");

        assertNotEquals(0, r.exit());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains(ClusterSecrets.ENV), r.err());
    }

    @Test
    void badPolicyIsOneLineNamingTheChoices() {
        Run r = run("lb", "--sip", "127.0.0.1:5060", "--nodes", "127.0.0.1:5061", "--policy", "random");

        assertNotEquals(0, r.exit());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("round-robin") && r.err().contains("call-id") && r.err().contains("aor"), r.err());
    }

    @Test
    void missingNodesOrBadAddressIsOneLine() {
        for (String[] args : new String[][] {
            {"lb", "--sip", "127.0.0.1:5060"},
            {"lb", "--sip", "127.0.0.1:5060", "--nodes", "127.0.0.1"},
            {"lb", "--sip", "127.0.0.1:5060", "--nodes", "127.0.0.1:5061", "--probe-failures", "0"},
        }) {
            Run r = run(args);
            assertNotEquals(0, r.exit(), String.join(" ", args));
            assertEquals(1, r.errLines().size(), r.err());
            assertTrue(r.err().startsWith("p2psip lb: "), r.err());
        }
    }

    @Test
    void busyPortIsOneLineAndExitOne() throws Exception {
        try (DatagramSocket taken = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            Run r = run("lb", "--sip", "127.0.0.1:" + taken.getLocalPort(), "--nodes", "127.0.0.1:5999");

            assertEquals(OneLineErrors.FAILURE, r.exit());
            assertEquals(1, r.errLines().size(), r.err());
            assertTrue(r.err().contains("in use"), r.err());
        }
    }

    @Test
    void aNodeAtTheBalancersOwnAddressIsRefused() {
        Run r = run("lb", "--sip", "127.0.0.1:5998", "--nodes", "127.0.0.1:5997,127.0.0.1:5998");

        assertEquals(OneLineErrors.FAILURE, r.exit());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("own address"), r.err());
    }
}
