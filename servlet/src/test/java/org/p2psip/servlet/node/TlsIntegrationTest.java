package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.SocketReads;
import org.p2psip.core.testing.UdpPeer;
import org.p2psip.core.tls.SelfSignedTls;
import org.p2psip.core.tls.TlsListener;
import org.p2psip.core.tls.TlsMaterial;

/**
 * SIP over TLS on a node (RFC 3261 §26): clients register over TLS and the
 * node delivers requests to contacts registered with transport=tls over a
 * TLS connection of its own.
 */
class TlsIntegrationTest {

    /** Where the busy threads leave their count, so the loop is not optimised away. */
    private static final AtomicLong BLACKHOLE = new AtomicLong();

    private static TlsMaterial nodeCertificate;
    private static FrontNode node;
    private static HostPort tls;

    @BeforeAll
    static void startNode() throws Exception {
        nodeCertificate = SelfSignedTls.inMemory(List.of("localhost", "127.0.0.1"));
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("example.com"))
                .withProtection(ProtectionSettings.DEFAULT.withLimits(20_000, 1_000))
                .withTls(Optional.of(new TlsListener(new HostPort("127.0.0.1", 0), nodeCertificate))));
        tls = node.tlsAddress().orElseThrow();
    }

    @AfterAll
    static void stopNode() {
        node.close();
    }

    private static SSLSocket connect() throws IOException {
        SSLSocket s = (SSLSocket) nodeCertificate.sslContext().getSocketFactory().createSocket();
        s.connect(new InetSocketAddress(tls.host(), tls.port()), 2_000);
        s.startHandshake();
        return s;
    }

    private static String tlsRequest(RequestText r, String sentBy) {
        return r.replace("Via:", "Via: SIP/2.0/TLS " + sentBy + ";branch=" + UdpPeer.branch()).text();
    }

    @Test
    void aRegisterOverTlsIsAnswered200OnTheSameConnection() throws Exception {
        try (SSLSocket s = connect()) {
            String aor = "sip:tls-alice@example.com";
            String sentBy = "127.0.0.1:" + s.getLocalPort();
            RequestText r = RequestText.standard("REGISTER", "sip:example.com", sentBy, aor, aor,
                    "t-" + UUID.randomUUID(), 1).with("Contact: <sip:tls-alice@" + sentBy + ";transport=tls>");
            write(s, tlsRequest(r, sentBy));
            SipText reply = SipText.parse(headerSection(s, Duration.ofSeconds(5)));
            assertEquals(200, reply.status());
            assertTrue(reply.header("contact").orElse("").contains("transport=tls"));
        }
    }

    @Test
    void aMessageOverTheSizeLimitGets513OverTls() throws Exception {
        try (SSLSocket s = connect()) {
            String sentBy = "127.0.0.1:" + s.getLocalPort();
            RequestText r = RequestText.standard("OPTIONS", "sip:" + tls, sentBy, "sip:big@example.com",
                    "sip:" + tls, "t-" + UUID.randomUUID(), 1).with("X-Padding: " + "x".repeat(30_000));
            write(s, tlsRequest(r, sentBy));
            String reply = headerSection(s, Duration.ofSeconds(5));
            assertTrue(reply.startsWith("SIP/2.0 513 "), reply);
        }
    }

    @Test
    void aRequestForAContactRegisteredOverTlsIsDeliveredOverTls() throws Exception {
        TlsMaterial phoneCertificate = SelfSignedTls.inMemory(List.of("phone.invalid"));
        SSLContext phoneContext = phoneCertificate.sslContext();
        try (SSLServerSocket phone = (SSLServerSocket) phoneContext.getServerSocketFactory()
                .createServerSocket(0, 5, InetAddress.getByName("127.0.0.1"));
             UdpPeer caller = new UdpPeer()) {
            String phoneAddress = "127.0.0.1:" + phone.getLocalPort();
            String aor = "sip:tls-bob@example.com";
            RequestText register = RequestText.standard("REGISTER", "sip:example.com", caller.hostPort(), aor, aor,
                    "t-" + UUID.randomUUID(), 1).with("Contact: <sip:tls-bob@" + phoneAddress + ";transport=tls>");
            caller.send(register.text(), node.sipAddress());
            assertEquals(200, caller.expectResponse("REGISTER", 200).status());

            CompletableFuture<String> delivered = CompletableFuture.supplyAsync(() -> {
                try (SSLSocket in = (SSLSocket) phone.accept()) {
                    return headerSection(in, Duration.ofSeconds(10));
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            RequestText message = RequestText.standard("MESSAGE", aor, caller.hostPort(), "sip:carol@example.com",
                    aor, "t-" + UUID.randomUUID(), 1).with("Content-Type: text/plain");
            caller.send(message.text(), node.sipAddress());

            String request = delivered.get(15, TimeUnit.SECONDS);
            assertTrue(request.startsWith("MESSAGE sip:tls-bob@" + phoneAddress), request);
            assertTrue(request.contains("SIP/2.0/TLS"), request);
        }
    }

    /**
     * Each delivery opens a connection whose handshake the node finishes on
     * its selector thread while the threads forwarding the other requests
     * wrap theirs: every record must still go out in the order it was
     * sealed, or the phone cannot decrypt it (RFC 8446 §5.3). Threads that
     * keep both cores busy while the requests go out make the node's threads
     * lose the processor between sealing and sending, as on a loaded host.
     */
    @Test
    void requestsToManyTlsContactsAtOnceAllArriveInOrder() throws Exception {
        int phones = 40;
        int perPhone = 4;
        TlsMaterial phoneCertificate = SelfSignedTls.inMemory(List.of("phone.invalid"));
        SSLContext phoneContext = phoneCertificate.sslContext();
        List<SSLServerSocket> listening = new ArrayList<>();
        ExecutorService readers = Executors.newFixedThreadPool(phones);
        AtomicBoolean sending = new AtomicBoolean(true);
        try (UdpPeer caller = new UdpPeer()) {
            List<String> aors = new ArrayList<>();
            for (int i = 0; i < phones; i++) {
                SSLServerSocket phone = (SSLServerSocket) phoneContext.getServerSocketFactory()
                        .createServerSocket(0, 5, InetAddress.getByName("127.0.0.1"));
                listening.add(phone);
                String aor = "sip:tls-many-" + i + "@example.com";
                aors.add(aor);
                RequestText register = RequestText.standard("REGISTER", "sip:example.com", caller.hostPort(), aor,
                        aor, "t-" + UUID.randomUUID(), 1)
                        .with("Contact: <sip:tls-many-" + i + "@127.0.0.1:" + phone.getLocalPort() + ";transport=tls>");
                caller.send(register.text(), node.sipAddress());
            }
            for (int i = 0; i < phones; i++) {
                caller.expectResponse("REGISTER", 200);
            }
            List<Future<Integer>> received = new ArrayList<>();
            for (SSLServerSocket phone : listening) {
                received.add(readers.submit(() -> {
                    try (SSLSocket in = (SSLSocket) phone.accept()) {
                        return SocketReads.untilCount(in, "MESSAGE sip:", perPhone, Duration.ofSeconds(15));
                    }
                }));
            }
            busy(sending, Runtime.getRuntime().availableProcessors(), Duration.ofSeconds(20));
            for (int round = 0; round < perPhone; round++) {
                for (String aor : aors) {
                    RequestText message = RequestText.standard("MESSAGE", aor, caller.hostPort(),
                            "sip:carol@example.com", aor, "t-" + UUID.randomUUID(), 1)
                            .with("Content-Type: text/plain");
                    caller.send(message.text(), node.sipAddress());
                }
            }
            List<String> failures = new ArrayList<>();
            for (int i = 0; i < phones; i++) {
                try {
                    int got = received.get(i).get(30, TimeUnit.SECONDS);
                    if (got != perPhone) {
                        failures.add(aors.get(i) + ": " + got + " of " + perPhone);
                    }
                } catch (ExecutionException e) {
                    failures.add(aors.get(i) + ": " + e.getCause());
                }
            }
            assertEquals(List.of(), failures);
        } finally {
            sending.set(false);
            readers.shutdownNow();
            for (SSLServerSocket phone : listening) {
                phone.close();
            }
        }
    }

    /** {@code threads} threads that spin while {@code on} holds, for at most {@code limit}. */
    private static void busy(AtomicBoolean on, int threads, Duration limit) {
        long end = System.nanoTime() + limit.toNanos();
        for (int i = 0; i < threads; i++) {
            Thread spinner = new Thread(() -> {
                long spins = 0;
                while (on.get() && System.nanoTime() < end) {
                    spins++;
                }
                BLACKHOLE.addAndGet(spins);
            }, "tls-test-busy-" + i);
            spinner.setDaemon(true);
            spinner.start();
        }
    }

    private static String headerSection(SSLSocket s, Duration deadline) throws IOException {
        String got = SocketReads.headerSection(s, deadline);
        if (!got.contains("\r\n\r\n")) {
            throw new AssertionError("no whole message within " + deadline + "; got: " + got);
        }
        return got;
    }

    private static void write(SSLSocket s, String text) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }
}
