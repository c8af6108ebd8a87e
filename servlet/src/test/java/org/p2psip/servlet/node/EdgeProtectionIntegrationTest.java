package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.p2psip.core.guard.SourceLimits;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.SocketReads;
import org.p2psip.core.testing.UdpPeer;

/**
 * The node's defences on real sockets: per-source bans, whole datagrams up
 * to the size limit and 513 beyond, TCP framing limits, idle and slow
 * connections closed, per-source connection caps. Distinct loopback
 * addresses (127.0.0.x) are distinct sources.
 */
class EdgeProtectionIntegrationTest {

    private static final int MAX_MESSAGE = 20_000;
    private static final int PER_SOURCE = 3;
    private static FrontNode node;

    @BeforeAll
    static void startNode() throws Exception {
        ProtectionSettings protection = ProtectionSettings.DEFAULT
                .withSources(new SourceLimits(20, 10, Duration.ofSeconds(60), 1_000), java.util.Set.of())
                .withConnections(Duration.ofMillis(1_500), Duration.ofMillis(1_000), 100, PER_SOURCE)
                .withLimits(MAX_MESSAGE, 1_000);
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("example.com"))
                .withProtection(protection));
    }

    @AfterAll
    static void stopNode() {
        node.close();
    }

    private static RequestText options(String sentBy) {
        return RequestText.standard("OPTIONS", "sip:" + node.sipAddress(), sentBy, "sip:ping@example.com",
                "sip:" + node.sipAddress(), "o-" + UUID.randomUUID(), 1);
    }

    @Test
    void aFloodingSourceIsBannedWhileAnotherSourceIsServed() throws Exception {
        try (UdpPeer flooder = new UdpPeer(InetAddress.getByName("127.0.0.2"));
             UdpPeer phone = new UdpPeer(InetAddress.getByName("127.0.0.3"))) {
            for (int i = 0; i < 50; i++) {
                flooder.send(options(flooder.hostPort()).text(), node.sipAddress());
            }
            InetAddress flooderAddress = InetAddress.getByName("127.0.0.2");
            long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            while (!node.edgeGuards().sources().banned(flooderAddress, System.nanoTime())
                    && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertTrue(node.edgeGuards().sources().banned(flooderAddress, System.nanoTime()));
            flooder.send(options(flooder.hostPort()).text(), node.sipAddress());

            phone.send(options(phone.hostPort()).text(), node.sipAddress());
            assertEquals(200, phone.expectResponse("OPTIONS", 200).status());
            assertTrue(flooder.await(r -> false, Duration.ofMillis(500)).isEmpty());
            // the burst (10, plus what refilled while sending) was answered; nothing after the ban
            int answered = flooder.received().size();
            assertTrue(answered >= 10 && answered <= 11, "answers to the flooder: " + answered);
        }
    }

    @Test
    void garbageChargesTheSourceThatSentItAndNoOther() throws Exception {
        InetAddress attacker = InetAddress.getByName("127.0.0.11");
        try (UdpPeer garbage = new UdpPeer(attacker);
             UdpPeer phone = new UdpPeer(InetAddress.getByName("127.0.0.12"))) {
            for (int i = 0; i < 3; i++) {
                garbage.sendBytes(("\u0001\u0002 not SIP at all " + i).getBytes(StandardCharsets.ISO_8859_1),
                        node.sipAddress());
                phone.send(options(phone.hostPort()).text(), node.sipAddress());
                assertEquals(200, phone.expectResponse("OPTIONS", 200).status());
            }
            // one garbage datagram costs more than the burst: the attacker's next message bans it
            garbage.send(options(garbage.hostPort()).text(), node.sipAddress());
            assertTrue(garbage.await(SipText::isResponse, Duration.ofMillis(500)).isEmpty());
            assertTrue(node.edgeGuards().sources().banned(attacker, System.nanoTime()));
            assertTrue(!node.edgeGuards().sources().banned(InetAddress.getByName("127.0.0.12"), System.nanoTime()));
        }
    }

    @Test
    void aDatagramNearTheSizeLimitIsHandledWhole() throws Exception {
        try (UdpPeer ua = new UdpPeer(InetAddress.getByName("127.0.0.4"))) {
            String padding = "x".repeat(MAX_MESSAGE - 1_000);
            String text = options(ua.hostPort()).with("X-Padding: " + padding).with("X-Last: intact").text();
            ua.send(text, node.sipAddress());
            SipText r = ua.expectResponse("OPTIONS", 200);
            assertEquals(200, r.status());
        }
    }

    @Test
    void aDatagramOverTheSizeLimitGets513() throws Exception {
        try (UdpPeer ua = new UdpPeer(InetAddress.getByName("127.0.0.5"))) {
            String text = options(ua.hostPort()).with("X-Padding: " + "x".repeat(MAX_MESSAGE)).text();
            ua.send(text, node.sipAddress());
            assertEquals(513, ua.expect(SipText::isResponse, "a response").status());
        }
    }

    @Test
    void aTcpMessageOverTheSizeLimitGets513AndTheConnectionCloses() throws Exception {
        try (Socket s = connect("127.0.0.6")) {
            String text = options("127.0.0.6:5060;transport=tcp").replace("Via:",
                            "Via: SIP/2.0/TCP 127.0.0.6:5060;branch=" + UdpPeer.branch()).text()
                    .replace("Content-Length: 0", "Content-Length: 1048576");
            write(s, text);
            String reply = SocketReads.untilClosed(s, Duration.ofSeconds(5));
            assertTrue(reply.startsWith("SIP/2.0 513 "), reply);
        }
    }

    @Test
    void aSlowlorisConnectionIsClosedAtTheMessageDeadline() throws Exception {
        try (Socket s = connect("127.0.0.7")) {
            String text = options("127.0.0.7:5060").text().replace("Content-Length: 0", "Content-Length: 500");
            long start = System.nanoTime();
            write(s, text + "only part of the body");
            SocketReads.untilClosed(s, Duration.ofSeconds(5));
            long waited = (System.nanoTime() - start) / 1_000_000;
            assertTrue(waited >= 900 && waited < 4_000, "closed after " + waited + " ms");
        }
    }

    @Test
    void anIdleConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        try (Socket s = connect("127.0.0.8")) {
            write(s, options("127.0.0.8:5060").replace("Via:",
                    "Via: SIP/2.0/TCP 127.0.0.8:5060;branch=" + UdpPeer.branch()).text());
            assertTrue(SocketReads.headerSection(s, Duration.ofSeconds(3)).startsWith("SIP/2.0 200 "));
            long start = System.nanoTime();
            SocketReads.untilClosed(s, Duration.ofSeconds(6));
            long waited = (System.nanoTime() - start) / 1_000_000;
            assertTrue(waited >= 1_400 && waited < 5_000, "closed after " + waited + " ms");
        }
    }

    @Test
    void aConnectionThatNeverSpeaksIsClosedAtTheMessageDeadlineOfItsStart() throws Exception {
        long overdueBefore = node.edgeGuards().overdueClosed();
        long idleBefore = node.edgeGuards().idleClosed();
        try (Socket s = connect("127.0.0.11")) {
            long start = System.nanoTime();
            SocketReads.untilClosed(s, Duration.ofSeconds(6));
            long waited = (System.nanoTime() - start) / 1_000_000;
            assertTrue(waited >= 900, "closed after " + waited + " ms");
        }
        assertTrue(node.edgeGuards().overdueClosed() > overdueBefore, "closed for the deadline");
        assertEquals(idleBefore, node.edgeGuards().idleClosed(), "not for idling");
    }

    @Test
    void theConnectionPastThePerSourceCapIsRefusedWhileAnotherSourceConnects() throws Exception {
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < PER_SOURCE; i++) {
                held.add(connect("127.0.0.9"));
            }
            try (Socket extra = connect("127.0.0.9"); Socket other = connect("127.0.0.10")) {
                assertTrue(SocketReads.closedWithin(extra, Duration.ofSeconds(3)), "the extra connection stayed open");
                write(other, options("127.0.0.10:5060").replace("Via:",
                        "Via: SIP/2.0/TCP 127.0.0.10:5060;branch=" + UdpPeer.branch()).text());
                String reply = SocketReads.headerSection(other, Duration.ofSeconds(3));
                assertTrue(reply.startsWith("SIP/2.0 200 "), reply);
                for (Socket s : held) {
                    assertTrue(!s.isClosed());
                }
            }
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }

    private static Socket connect(String from) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
        s.connect(new InetSocketAddress(node.sipAddress().host(), node.sipAddress().port()), 2_000);
        return s;
    }

    private static void write(Socket s, String text) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }
}
