package org.p2psip.balancer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLSocket;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.net.HostPort;
import org.p2psip.balancer.LbWire.StubNode;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.tls.SelfSignedTls;
import org.p2psip.core.tls.TlsMaterial;
import org.p2psip.core.tls.TlsListener;

/**
 * SIP over TLS through the balancer (RFC 3261 §26.2) to a stub node over
 * UDP: the handshake, a REGISTER answered on the client's own TLS
 * connection, the client's Via kept as TLS, the same limits as TCP, and a
 * client nobody here wrote ({@code openssl s_client}).
 */
@Timeout(60)
class LbTlsIntegrationTest {

    @TempDir
    Path dir;

    private StubNode node;
    private SipBalancer balancer;
    private SelfSignedTls.PemFiles pem;
    private TlsMaterial material;
    private HostPort tls;

    @BeforeEach
    void start() throws Exception {
        node = new StubNode();
        pem = SelfSignedTls.generate(List.of("localhost", "127.0.0.1"), dir);
        material = pem.load();
        balancer = SipBalancer.start(BalancerSettings.of(new HostPort("127.0.0.1", 0), List.of(node.hostPort()),
                BalancingPolicy.CALL_ID).withProbes(Duration.ofMillis(200), 3).withMaxMessageBytes(4096)
                .withTls(new TlsListener(new HostPort("127.0.0.1", 0), material)));
        tls = balancer.tlsAddress().orElseThrow();
    }

    @AfterEach
    void stop() {
        if (balancer != null) {
            balancer.close();
        }
        node.close();
    }

    private SSLSocket connect() throws Exception {
        // From 127.0.0.2, so the balancer sees a source other than its node's.
        SSLSocket s = (SSLSocket) material.sslContext().getSocketFactory().createSocket("127.0.0.1", tls.port(),
                InetAddress.getByName("127.0.0.2"), 0);
        s.setSoTimeout((int) LbWire.WAIT.toMillis());
        s.startHandshake();
        return s;
    }

    @Test
    void registerOverTlsIsAnsweredOnTheSameConnection() throws Exception {
        try (SSLSocket s = connect()) {
            String protocol = s.getSession().getProtocol();
            assertTrue(protocol.equals("TLSv1.3") || protocol.equals("TLSv1.2"), protocol);
            String sentBy = "client.example.test:" + s.getLocalPort();
            String register = LbWire.request("REGISTER", sentBy, "TLS", "tls-reg-1", "")
                    .replace("sip:service@example.com SIP/2.0", "sips:example.com SIP/2.0")
                    .replace("Content-Length: 0", "Contact: <sips:alice@" + sentBy + ">\r\nContent-Length: 0");
            s.getOutputStream().write(register.getBytes(StandardCharsets.ISO_8859_1));

            String answer = LbWire.readMessage(s.getInputStream());
            assertNotNull(answer);
            assertTrue(answer.startsWith("SIP/2.0 200 OK\r\n"), answer);
            assertEquals(1, SipText.parse(answer).headers("Via").size(), "the balancer's Via came off: " + answer);
        }
        LbWire.Udp.Received forwarded = node.requests("tls-reg-1").get(0);
        SipText atNode = forwarded.text();
        assertEquals("REGISTER sips:example.com SIP/2.0", atNode.firstLine(), "sips: passes through untouched");
        List<String> vias = atNode.headers("Via");
        assertTrue(vias.get(0).startsWith("SIP/2.0/UDP 127.0.0.1:" + balancer.nodeSideAddress().port() + ";"),
                "the node answers to the balancer's node-side socket: " + vias);
        assertTrue(vias.get(1).startsWith("SIP/2.0/TLS client.example.test:"), vias.toString());
        assertTrue(vias.get(1).contains(";received=127.0.0.2"), vias.toString());
        assertTrue(vias.get(0).contains(";lb=s"), "the return address names a TLS connection: " + vias);
    }

    @Test
    void anOversizedMessageOverTlsGets513AndTheConnectionCloses() throws Exception {
        try (SSLSocket s = connect()) {
            String big = LbWire.request("MESSAGE", "127.0.0.2:" + s.getLocalPort(), "TLS", "tls-big", "q".repeat(8000));
            s.getOutputStream().write(big.substring(0, big.indexOf("\r\n\r\n") + 4).getBytes(StandardCharsets.ISO_8859_1));

            String answer = LbWire.readMessage(s.getInputStream());
            assertNotNull(answer);
            assertTrue(answer.startsWith("SIP/2.0 513 "), answer);
            assertTrue(LbWire.closedWithin(s, LbWire.WAIT));
        }
        assertTrue(node.requests("tls-big").isEmpty());
    }

    @Test
    void opensslSClientRegistersThroughTheBalancer() throws Exception {
        Process p = new ProcessBuilder("openssl", "s_client", "-connect", "127.0.0.1:" + tls.port(), "-CAfile",
                pem.certificate().toString(), "-verify_return_error", "-verify_ip", "127.0.0.1", "-quiet",
                "-ign_eof").redirectErrorStream(true).start();
        try {
            CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> readUntil200(p.getInputStream()));
            OutputStream in = p.getOutputStream();
            in.write(LbWire.request("REGISTER", "127.0.0.1:5099", "TLS", "openssl-reg", "")
                    .getBytes(StandardCharsets.ISO_8859_1));
            in.flush();
            String out = answer.get(LbWire.WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(out.contains("SIP/2.0 200 OK"), out);
            assertTrue(out.contains("Call-ID: openssl-reg"), out);
        } finally {
            p.destroy();
            p.waitFor(5, TimeUnit.SECONDS);
        }
    }

    /** What openssl printed up to the end of the first 200 response's headers (its error text otherwise). */
    private static String readUntil200(InputStream in) {
        StringBuilder b = new StringBuilder();
        try {
            for (int c; (c = in.read()) >= 0; ) {
                b.append((char) c);
                int at = b.indexOf("SIP/2.0 200");
                if (at >= 0 && b.indexOf("\r\n\r\n", at) >= 0) {
                    break;
                }
            }
        } catch (java.io.IOException e) {
            b.append(" [").append(e.getMessage()).append(']');
        }
        return b.toString();
    }
}
