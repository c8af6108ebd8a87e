package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.testing.FreePorts;

/**
 * SIP over TLS (RFC 3261 §26) with clients nobody here wrote, against
 * {@code p2psip cluster --tls} with its self-signed certificate: baresip
 * registers through the balancer's TLS port, two baresip phones call each
 * other with TLS on both legs at the edge (the caller to the balancer, a
 * node to the callee's TLS listener), and {@code openssl s_client}
 * verifies the certificate the cluster printed and gets a SIP answer
 * through it.
 *
 * <p>The calling phones use an AOR whose host is the balancer's TLS
 * address (an alias of the domain) rather than an outbound proxy: with
 * {@code outbound=} baresip puts {@code Route: <sip:BALANCER-TLS;transport=tls;lr>}
 * on every request, which neither the balancer (it recognises only its
 * UDP/TCP address in Route) nor the node removes, so a node sends the
 * INVITE back to the balancer's TLS port and the call never gets past 100
 * Trying. A REGISTER is not routed by its Route, so registering through the
 * outbound proxy works and is tested here.
 */
@Timeout(180)
class TlsAcceptanceTest {

    private static final int NODES = 3;

    @TempDir
    static Path work;

    private static AuthenticatedCluster cluster;
    private static int tlsPort;
    private static Path certificate;
    /** The cluster's certificate and key in one PEM file, the form baresip's sip_certificate takes. */
    private static Path phoneCertificate;

    @BeforeAll
    static void startCluster() throws Exception {
        Baresip.binary();
        InstalledTool.path("openssl", "openssl");
        tlsPort = FreePorts.udpAndTcp();
        Path tlsDir = work.resolve("cluster-tls");
        cluster = AuthenticatedCluster.start(work, "hazelcast", NODES, 2,
                "--tls", "127.0.0.1:" + tlsPort, "--tls-dir", tlsDir.toString());
        List<String> output = cluster.process().output();
        String printed = output.stream().filter(l -> l.contains("p2psip cluster: TLS certificate ")).findFirst()
                .orElseThrow(() -> new AssertionError("no certificate line:\n" + String.join("\n", output)));
        Matcher m = Pattern.compile("TLS certificate (\\S+) \\(clients trust this\\)").matcher(printed);
        assertTrue(m.find(), printed);
        certificate = Path.of(m.group(1));
        assertEquals(tlsDir.resolve("cert.pem"), certificate, "--tls-dir chooses where the certificate goes");
        assertTrue(output.stream().anyMatch(l -> l.contains("sips:127.0.0.1:" + tlsPort + " (tls)")),
                String.join("\n", output));
        // The phones present the cluster's own certificate on their TLS listeners: the nodes trust it
        // (their trust is the JDK's CAs plus the cluster's chain), so reaching a phone does not depend on
        // whether a node checks the phone's certificate.
        phoneCertificate = work.resolve("phone.pem");
        Files.writeString(phoneCertificate, Files.readString(certificate) + Files.readString(tlsDir.resolve("key.pem")),
                StandardCharsets.US_ASCII);
        cluster.importUsers("tls", 3);
    }

    @AfterAll
    static void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static String balancerTls() {
        return "127.0.0.1:" + tlsPort;
    }

    @Test
    void baresipRegistersOverTlsThroughTheBalancersTlsPort() throws Exception {
        try (Baresip bob = Baresip.startTls(work, "tls-register", "sip:tlsu1@" + AuthenticatedCluster.DOMAIN,
                AuthenticatedCluster.password("tlsu1"), balancerTls(), false, phoneCertificate, certificate)) {
            bob.awaitOutput("tlsu1@p2psip.test: {0/TLS/v4} 200 OK", Duration.ofSeconds(20));

            List<Baresip.Traced> registers = bob.traced("REGISTER ");
            assertEquals(2, registers.size(), "one REGISTER, one answering the challenge:\n" + bob.tail());
            for (Baresip.Traced r : registers) {
                assertEquals("TLS", r.transport(), r.toString());
                assertEquals(balancerTls(), r.to(), r.toString());
            }
            List<String> answers = bob.traced("SIP/2.0 ").stream().map(Baresip.Traced::startLine).toList();
            assertEquals(List.of("SIP/2.0 401 Unauthorized", "SIP/2.0 200 OK"), answers);

            // The binding keeps the phone's TLS contact; calls reach it down its connection (its Path).
            try (SipUdpClient client = new SipUdpClient()) {
                String bindings = client.registerWithPassword(cluster.lbPort(), "tlsu1",
                        AuthenticatedCluster.password("tlsu1"), null, "tls-check-" + UUID.randomUUID(), null);
                assertEquals(200, SipUdpClient.statusOf(bindings), bindings);
                List<String> contacts = SipUdpClient.contactsOf(bindings);
                assertEquals(1, contacts.size(), bindings);
                assertTrue(contacts.get(0).contains("@127.0.0.1:" + bob.tlsPort() + ";transport=tls"), bindings);
            }
        }
    }

    @Test
    void twoBaresipPhonesOnTlsCallEachOtherThroughTheCluster() throws Exception {
        String alicesAor = "sip:tlsu0@" + balancerTls();
        String bobsAor = "sip:tlsu2@" + balancerTls();
        try (Baresip bob = Baresip.startTls(work, "tls-bob", bobsAor, AuthenticatedCluster.password("tlsu2"), null,
                true, phoneCertificate, certificate);
             Baresip alice = Baresip.startTls(work, "tls-alice", alicesAor, AuthenticatedCluster.password("tlsu0"), null,
                     false, phoneCertificate, certificate)) {
            bob.awaitOutput("tlsu2@127.0.0.1: {0/TLS/v4} 200 OK", Duration.ofSeconds(20));
            alice.awaitOutput("tlsu0@127.0.0.1: {0/TLS/v4} 200 OK", Duration.ofSeconds(20));

            alice.command("dial", bobsAor);
            alice.awaitOutput("Call established: " + bobsAor, Duration.ofSeconds(20));
            bob.awaitOutput("Call established: " + alicesAor, Duration.ofSeconds(20));

            // The caller's INVITEs (one challenged, one with credentials) left over TLS for the balancer.
            List<Baresip.Traced> sent = alice.traced("INVITE ");
            assertEquals(2, sent.size(), alice.tail());
            for (Baresip.Traced invite : sent) {
                assertEquals("TLS", invite.transport(), invite.toString());
                assertEquals(balancerTls(), invite.to(), invite.toString());
            }
            // One INVITE reached the callee down the TLS connection it registered on, from the balancer, which
            // keeps that flow (RFC 5626): the top Via is the balancer's, the one under it a node's.
            String bobsConnection = bob.traced("REGISTER ").get(0).from();
            List<Baresip.Traced> received = bob.traced("INVITE ");
            assertEquals(1, received.size(), bob.tail());
            Baresip.Traced invite = received.get(0);
            assertEquals("TLS", invite.transport(), invite.toString());
            assertEquals(balancerTls(), invite.from(), invite.toString());
            assertEquals(bobsConnection, invite.to(), "on the registered connection, not to a listener: " + invite);
            List<String> vias = vias(invite);
            assertTrue(vias.get(0).startsWith("SIP/2.0/TLS " + balancerTls() + ";"), vias.toString());
            assertTrue(nodeAddresses().contains(sentBy(vias.get(1))), "a node sent it on: " + vias);
            List<Baresip.Traced> answers = bob.traced("SIP/2.0 200").stream()
                    .filter(r -> r.header("CSeq").endsWith("INVITE")).toList();
            assertFalse(answers.isEmpty(), bob.tail());
            for (Baresip.Traced answer : answers) {
                assertEquals("TLS", answer.transport(), answer.toString());
                assertEquals(bobsConnection, answer.from(), "the callee answers on the same connection: " + answer);
            }

            alice.command("hangup", "");
            // The BYE reached bob down the same connection, through a node that routes the dialog.
            bob.awaitOutput(alicesAor + ": session closed", Duration.ofSeconds(20));
            List<Baresip.Traced> byes = bob.traced("BYE ");
            assertEquals(1, byes.size(), bob.tail());
            assertEquals("TLS", byes.get(0).transport(), byes.get(0).toString());
            assertEquals(bobsConnection, byes.get(0).to(), byes.get(0).toString());
            assertTrue(nodeAddresses().contains(sentBy(vias(byes.get(0)).get(1))), byes.get(0).toString());
        }
    }

    /** The Via values of a traced message, top first, one per entry. */
    private static List<String> vias(Baresip.Traced message) {
        List<String> vias = new ArrayList<>();
        for (String line : message.message().split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && (line.substring(0, colon).trim().equalsIgnoreCase("Via")
                    || line.substring(0, colon).trim().equalsIgnoreCase("v"))) {
                for (String v : line.substring(colon + 1).split(",")) {
                    vias.add(v.trim());
                }
            }
        }
        return vias;
    }

    @Test
    void opensslVerifiesTheClustersCertificateAndGetsASipAnswerThroughIt() throws Exception {
        String callId = "openssl-" + UUID.randomUUID();
        String register = "REGISTER sip:" + AuthenticatedCluster.DOMAIN + " SIP/2.0\r\n"
                + "Via: SIP/2.0/TLS 127.0.0.1:5061;branch=z9hG4bK" + UUID.randomUUID() + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:tlsu0@" + AuthenticatedCluster.DOMAIN + ">;tag=openssl\r\n"
                + "To: <sip:tlsu0@" + AuthenticatedCluster.DOMAIN + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 REGISTER\r\n"
                + "Contact: <sip:tlsu0@127.0.0.1:5061;transport=tls>\r\n"
                + "Content-Length: 0\r\n\r\n";
        String trusted = sClient("trusting", List.of("-CAfile", certificate.toString()), register,
                out -> out.contains("Verify return code: ") && out.contains("SIP/2.0 "), true);
        assertTrue(trusted.contains("Verify return code: 0 (ok)"), trusted);
        Matcher status = Pattern.compile("(?m)^SIP/2\\.0 (\\d{3}) ").matcher(trusted);
        assertTrue(status.find(), trusted);
        assertEquals("401", status.group(1), "an unauthenticated REGISTER is challenged:\n" + trusted);
        assertTrue(trusted.contains("Call-ID: " + callId), trusted);
        assertTrue(trusted.contains("realm=\"" + AuthenticatedCluster.DOMAIN + "\""), trusted);

        // Without the cluster's certificate as a trust anchor the same check fails: it is not vacuous.
        String untrusted = sClient("untrusting", List.of("-no-CAfile", "-no-CApath", "-no-CAstore"), register,
                out -> false, false);
        assertFalse(untrusted.contains("Verify return code: 0 (ok)"), untrusted);
        assertTrue(untrusted.contains("self-signed certificate") || untrusted.contains("verify error"), untrusted);
        assertFalse(untrusted.contains("SIP/2.0 "), untrusted);
    }

    /**
     * Runs {@code openssl s_client} against the balancer's TLS port, checking
     * the subjectAltName against 127.0.0.1 and refusing to go on after a
     * verification error, writes {@code input} once connected, and returns
     * what it printed by the time {@code done} holds (or it exited by
     * itself, if {@code expectToStay} is false), within 15 s.
     */
    private static String sClient(String name, List<String> trust, String input,
                                  java.util.function.Predicate<String> done, boolean expectToStay) throws Exception {
        List<String> command = new ArrayList<>(List.of("openssl", "s_client", "-connect", balancerTls(),
                "-verify_ip", "127.0.0.1", "-verify_return_error", "-nocommands", "-ign_eof"));
        command.addAll(trust);
        Path out = work.resolve("s_client-" + name + ".txt");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            try (OutputStream in = p.getOutputStream()) {
                in.write(input.getBytes(StandardCharsets.US_ASCII));
                in.flush();
                Instant deadline = Instant.now().plusSeconds(15);
                while (Instant.now().isBefore(deadline)) {
                    String text = read(out);
                    if (done.test(text)) {
                        return text;
                    }
                    if (!p.isAlive()) {
                        assertFalse(expectToStay, "s_client exited with " + p.exitValue() + ":\n" + text);
                        assertNotEquals(0, p.exitValue(), text);
                        return text;
                    }
                    TimeUnit.MILLISECONDS.sleep(50);
                }
            } catch (IOException e) {
                // s_client exited before reading its input: what it printed says why.
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    throw e;
                }
                assertFalse(expectToStay, "s_client exited with " + p.exitValue() + ":\n" + read(out));
                assertNotEquals(0, p.exitValue(), read(out));
                return read(out);
            }
            throw new AssertionError("s_client " + name + " did not finish within 15 s:\n" + read(out));
        } finally {
            p.destroy();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    private static String read(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.ISO_8859_1) : "";
    }

    /** host:port of the nodes' SIP listeners, which is what a node writes as its Via sent-by. */
    private static Set<String> nodeAddresses() {
        Set<String> nodes = new java.util.HashSet<>();
        for (int i = 1; i <= NODES; i++) {
            nodes.add("127.0.0.1:" + (cluster.lbPort() + i));
        }
        return nodes;
    }

    /** The sent-by (host:port) of the first Via value in {@code via}. */
    private static String sentBy(String via) {
        Matcher m = Pattern.compile("^SIP/2\\.0/\\w+\\s+([^;,\\s]+)").matcher(via);
        return m.find() ? m.group(1) : via;
    }
}
