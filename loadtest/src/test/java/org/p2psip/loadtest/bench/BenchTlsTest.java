package org.p2psip.loadtest.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLSocket;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.cli.P2psip;
import org.p2psip.servlet.node.FrontNode;
import org.p2psip.servlet.node.NodeSettings;
import org.p2psip.servlet.node.TrustSettings;
import org.p2psip.core.tls.SelfSignedTls;
import org.p2psip.core.tls.TlsListener;
import org.p2psip.core.tls.TlsMaterial;

import picocli.CommandLine;

/**
 * {@code p2psip bench} over TLS (RFC 3261 §26.2) on real sockets: through
 * a real {@code p2psip lb} process whose TLS listener fronts a trivial
 * responder, and straight to the responder's own TLS listener; a
 * certificate the generator does not trust, or one for another name, stops
 * the run before any load with one line and exit code 1.
 */
@Timeout(90)
class BenchTlsTest {

    private static final Duration STARTUP = Duration.ofSeconds(30);

    @TempDir
    static Path dir;

    private static BuiltInUas node;
    private static Process balancer;
    private static final List<String> balancerOutput = new CopyOnWriteArrayList<>();
    private static SelfSignedTls.PemFiles clusterPem;
    private static String balancerTls;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    /** A responder as the only node, behind {@code p2psip lb --tls} in a JVM of its own. */
    @BeforeAll
    static void startBalancer() throws Exception {
        node = BuiltInUas.start(InetAddress.getLoopbackAddress(), 0, 1);
        clusterPem = SelfSignedTls.generate(List.of("localhost", "127.0.0.1"), dir.resolve("cluster"));
        int sip = freeUdpAndTcpPort();
        int tls = freeTcpPort();
        balancerTls = "127.0.0.1:" + tls;
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "org.p2psip.servlet.cli.P2psip", "lb",
                "--sip", "127.0.0.1:" + sip, "--nodes", node.hostPort(), "--tls", balancerTls,
                "--tls-cert", clusterPem.certificate().toString(), "--tls-key", clusterPem.key().toString()));
        balancer = new ProcessBuilder(command).redirectErrorStream(true).start();
        Thread pump = new Thread(() -> pump(balancer.getInputStream()), "lb-output");
        pump.setDaemon(true);
        pump.start();
        long deadline = System.nanoTime() + STARTUP.toNanos();
        while (balancerOutput.stream().noneMatch(l -> l.contains("listening on"))) {
            if (!balancer.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("p2psip lb did not start: " + String.join("\n", balancerOutput));
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    @AfterAll
    static void stopBalancer() throws InterruptedException {
        if (balancer != null) {
            balancer.destroy();
            if (!balancer.waitFor(10, TimeUnit.SECONDS)) {
                balancer.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (node != null) {
            node.close();
        }
    }

    private int run(String... args) {
        CommandLine cl = P2psip.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        return cl.execute(args);
    }

    @Test
    void registerOverTlsThroughTheBalancerSucceedsForEveryRequest() {
        int code = run("bench", "register", "--target", balancerTls, "--transport", "tls", "--tls-ca",
                clusterPem.certificate().toString(), "--auth", "none", "--count", "200", "--rate", "100", "--json");
        assertEquals(0, code, err.toString() + out);
        String json = out.toString().strip();
        assertTrue(json.startsWith("{\"scenario\":\"register\",\"transport\":\"tls\""), json);
        assertTrue(json.contains("\"attempted\":200,\"succeeded\":200,\"failed\":0"), json);
        assertEquals("", err.toString());
    }

    @Test
    void aCertificateNotTrustedFailsTheHandshakeInOneLineWithExitCodeOne() throws Exception {
        SelfSignedTls.PemFiles stranger = SelfSignedTls.generate(List.of("127.0.0.1"), dir.resolve("stranger"));
        int code = run("bench", "register", "--target", balancerTls, "--transport", "tls", "--tls-ca",
                stranger.certificate().toString(), "--auth", "none", "--count", "10", "--rate", "100");
        assertEquals(1, code, err.toString() + out);
        String line = err.toString().strip();
        assertEquals(1, line.lines().count(), line);
        assertTrue(line.startsWith("p2psip bench register: TLS handshake with " + balancerTls + " failed: "
                + "its certificate is not trusted"), line);
        assertEquals("", out.toString());
    }

    @Test
    void theResponderAnswersOverTlsWithTheGivenCertificate() throws Exception {
        TlsMaterial material = clusterPem.load();
        try (BuiltInUas responder = startTlsResponder(material)) {
            int code = run("bench", "register", "--target", responder.hostPort(BenchTransport.TLS), "--transport",
                    "tls", "--tls-ca", clusterPem.certificate().toString(), "--auth", "none", "--threads", "2",
                    "--count", "400", "--rate", "1000");
            assertEquals(0, code, err.toString() + out);
            assertTrue(out.toString().contains("400/400 ok"), out.toString());
        }
    }

    @Test
    void tlsInsecureAcceptsAnyCertificateAndSaysSoOnStderr() throws Exception {
        try (BuiltInUas responder = startTlsResponder(SelfSignedTls.inMemory(List.of("unrelated.example")))) {
            int code = run("bench", "message", "--target", responder.hostPort(BenchTransport.TLS), "--transport",
                    "tls", "--tls-insecure", "--auth", "none", "--aors", "5", "--count", "50", "--rate", "500");
            assertEquals(0, code, err.toString() + out);
            assertTrue(out.toString().contains("50/50 ok"), out.toString());
            String warning = err.toString().strip();
            assertEquals(1, warning.lines().count(), warning);
            assertTrue(warning.startsWith("p2psip bench message: warning: --tls-insecure: "), warning);
        }
    }

    @Test
    void aTrustedCertificateForAnotherNameIsRefused() throws Exception {
        SelfSignedTls.PemFiles other = SelfSignedTls.generate(List.of("other.example"), dir.resolve("other"));
        try (BuiltInUas responder = startTlsResponder(other.load())) {
            int code = run("bench", "register", "--target", responder.hostPort(BenchTransport.TLS), "--transport",
                    "tls", "--tls-ca", other.certificate().toString(), "--auth", "none", "--count", "5");
            assertEquals(1, code, err.toString() + out);
            String line = err.toString().strip();
            assertEquals(1, line.lines().count(), line);
            assertTrue(line.contains("failed: its certificate is for another name"), line);
        }
    }

    /**
     * With {@code --uas-transport tls} the built-in UAS registers
     * {@code ;transport=tls} contacts and answers on a TLS listener of its
     * own with the certificate it was given.
     */
    @Test
    void theBuiltInUasListensForTlsWithItsCertificate() throws Exception {
        TlsMaterial material = clusterPem.load();
        LoadSpec spec = LoadSpec.of(Scenario.MESSAGE, HostPort.parse(node.hostPort())).withAors(3).withThreads(1)
                .withUasTransport(BenchTransport.TLS).withTls(new BenchTls(TlsTrust.jdkDefaults(), material));
        try (LoadRun run = LoadRun.open(spec)) {
            HostPort uas = HostPort.parse(run.uasAddress());
            assertTrue(uas.port() != node.port());
            try (SSLSocket s = (SSLSocket) material.sslContext().getSocketFactory().createSocket(uas.host(),
                    uas.port())) {
                s.setSoTimeout(5000);
                s.startHandshake();
                assertEquals(material.certificateChain().get(0), s.getSession().getPeerCertificates()[0]);
                String sentBy = "127.0.0.1:" + s.getLocalPort();
                s.getOutputStream().write(("OPTIONS sip:uas@" + run.uasAddress() + ";transport=tls SIP/2.0\r\n"
                        + "Via: SIP/2.0/TLS " + sentBy + ";branch=z9hG4bKtls1\r\n"
                        + "From: <sip:probe@" + sentBy + ">;tag=1\r\nTo: <sip:uas@" + run.uasAddress() + ">\r\n"
                        + "Call-ID: tls-probe\r\nCSeq: 1 OPTIONS\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                String answer = readHead(s.getInputStream());
                assertNotNull(answer);
                assertTrue(answer.startsWith("SIP/2.0 200 OK\r\n"), answer);
                assertTrue(answer.contains("Via: SIP/2.0/TLS " + sentBy), answer);
            }
        }
    }

    /**
     * Calls over TLS both ways through a real front node: the generator's
     * lanes to the node's TLS listener, the node to the UAS's TLS contacts.
     * The UAS presents the cluster's own certificate, which the node trusts.
     */
    @Test
    void callsOverTlsBothWaysThroughARealNode() throws Exception {
        TlsMaterial material = clusterPem.load();
        FrontNode front = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("127.0.0.1"))
                .withTls(Optional.of(new TlsListener(new HostPort("127.0.0.1", 0), material))));
        try {
            LoadSpec spec = LoadSpec.of(Scenario.CALL, front.tlsAddress().orElseThrow()).withTransport(BenchTransport.TLS)
                    .withUasTransport(BenchTransport.TLS).withDomain(front.sipAddress().toString())
                    .withTls(new BenchTls(TlsTrust.jdkDefaultsAnd(List.of(clusterPem.certificate())), material))
                    .withRate(200).withCount(100).withDuration(Duration.ofSeconds(20)).withThreads(2).withAors(10);
            LoadReport r = LoadRun.run(spec);
            assertEquals(Map.of(), r.failures(), r.summary());
            assertEquals(100, r.succeeded(), r.summary());
        } finally {
            front.close();
        }
    }

    @Test
    void requestsOverTlsSayTlsInViaAndContact() {
        FlowContext c = new FlowContext("run1", "example.com", BenchTransport.TLS.viaToken(), "127.0.0.1:40000",
                "u", "callee", 1, 3600, 0, null, 1);
        String register = new String(SipRequests.register(c, "z9hG4bKb1", "alice", "call-1", 1,
                c.sentBy() + c.uriTransport(), null), StandardCharsets.UTF_8);
        assertTrue(register.contains("\r\nVia: SIP/2.0/TLS 127.0.0.1:40000;branch=z9hG4bKb1;rport\r\n"), register);
        assertTrue(register.contains("\r\nContact: <sip:alice@127.0.0.1:40000;transport=tls>\r\n"), register);
        String invite = new String(SipRequests.initial(c, "INVITE", "z9hG4bKb2", "alice", "bob", "call-2", 1, null,
                null, null), StandardCharsets.UTF_8);
        assertTrue(invite.contains("\r\nContact: <sip:alice@127.0.0.1:40000;transport=tls>\r\n"), invite);
        assertTrue(BenchTransport.TLS.reliable(), "no retransmissions over TLS (RFC 3261 §17.1.1.2)");
    }

    @Test
    void tlsFlagsOutOfPlaceOrUnreadableAreOneLineErrors() {
        String pem = clusterPem.certificate().toString();
        assertBadFlag("--tls-ca and --tls-insecure need --transport tls",
                "bench", "register", "--target", balancerTls, "--tls-ca", pem);
        assertBadFlag("--tls-ca and --tls-insecure exclude each other",
                "bench", "register", "--target", balancerTls, "--transport", "tls", "--tls-ca", pem, "--tls-insecure");
        assertBadFlag("--tls-cert and --tls-key go together",
                "bench", "call", "--target", balancerTls, "--uas-transport", "tls", "--tls-cert", pem);
        assertBadFlag("--tls-cert and --tls-key are the built-in UAS's",
                "bench", "register", "--target", balancerTls, "--tls-cert", pem, "--tls-key",
                clusterPem.key().toString());
        assertBadFlag("--tls-ca: certificate file " + dir.resolve("missing.pem") + " does not exist",
                "bench", "register", "--target", balancerTls, "--transport", "tls", "--tls-ca",
                dir.resolve("missing.pem").toString());
        assertBadFlag("--tls-cert/--tls-key: ", "bench", "message", "--target", balancerTls, "--uas-transport", "tls",
                "--tls-cert", clusterPem.key().toString(), "--tls-key", clusterPem.key().toString());
        assertBadFlag("'sctp' (udp, tcp or tls)", "bench", "register", "--target", balancerTls, "--transport", "sctp");
    }

    private void assertBadFlag(String expected, String... args) {
        err.getBuffer().setLength(0);
        assertEquals(2, run(args), err.toString());
        String line = err.toString().strip();
        assertEquals(1, line.lines().count(), line);
        assertTrue(line.contains(expected), line);
    }

    private static BuiltInUas startTlsResponder(TlsMaterial material) {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        return BuiltInUas.start(loopback, 0, 1, new BuiltInUas.TlsSide(loopback, 0, material));
    }

    /** The start line and headers of one message, or null if the connection ends first. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c; (c = in.read()) >= 0; ) {
            b.write(c);
            String s = b.toString(StandardCharsets.ISO_8859_1);
            if (s.endsWith("\r\n\r\n")) {
                return s;
            }
        }
        return null;
    }

    private static void pump(InputStream in) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                balancerOutput.add(line);
            }
        } catch (IOException e) {
            balancerOutput.add("[output closed: " + e + "]");
        }
    }

    private static int freeTcpPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** A port free for both UDP and TCP, as --sip binds both. */
    private static int freeUdpAndTcpPort() throws IOException {
        for (int attempt = 0; attempt < 20; attempt++) {
            try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                 ServerSocket tcp = new ServerSocket(udp.getLocalPort(), 1, InetAddress.getLoopbackAddress())) {
                return tcp.getLocalPort();
            } catch (IOException busy) {
                // TCP has that port in use: try another.
            }
        }
        throw new IOException("no port free for both UDP and TCP");
    }
}
