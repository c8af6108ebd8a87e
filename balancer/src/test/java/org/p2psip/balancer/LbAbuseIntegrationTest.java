package org.p2psip.balancer;

import org.p2psip.sip.wire.ConnectionLimits;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.guard.SourceLimits;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.Eventually;
import org.p2psip.balancer.LbWire.StubNode;
import org.p2psip.balancer.LbWire.Udp;
import org.p2psip.core.testing.SipText;

/**
 * The balancer's defences on real sockets: per-source bans, connection
 * caps, the message deadline, the idle timeout and the size limits. Clients
 * use 127.0.0.2 and 127.0.0.3 (distinct sources on Linux) so that they are
 * not the stub node's trusted 127.0.0.1. Limits are set small so every test
 * is quick; the 15,000-connection run is a benchmark, not a test.
 */
@Timeout(60)
class LbAbuseIntegrationTest {

    private static final String A = "127.0.0.2";
    private static final String B = "127.0.0.3";

    private final List<AutoCloseable> open = new ArrayList<>();
    private StubNode node;
    private SipBalancer balancer;

    private HostPort start(java.util.function.UnaryOperator<BalancerSettings> tune) throws Exception {
        node = new StubNode();
        open.add(node);
        balancer = SipBalancer.start(tune.apply(BalancerSettings.of(new HostPort("127.0.0.1", 0),
                List.of(node.hostPort()), BalancingPolicy.CALL_ID).withProbes(Duration.ofMillis(200), 3)));
        return balancer.address();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        if (balancer != null) {
            balancer.close();
        }
    }

    @Test
    void bannedSourceIsDroppedWhileAnotherSourceIsServed() throws Exception {
        // 1/s refill: the test thread would have to stall for a second before the flood earned a sixth token.
        HostPort lb = start(s -> s.withSources(new SourceLimits(1, 5, Duration.ofSeconds(30), 1000), Set.of()));
        Udp flooder = udp(A);
        Udp other = udp(B);

        for (int i = 0; i < 8; i++) {
            flooder.send(LbWire.request("OPTIONS", flooder.hostPort().toString(), "UDP", "flood-" + i, ""), lb);
        }
        other.send(LbWire.request("OPTIONS", other.hostPort().toString(), "UDP", "other-1", ""), lb);
        other.expectResponse(200);
        // Still banned: dropped, while the other source's next request, sent after it, goes through.
        flooder.send(LbWire.request("OPTIONS", flooder.hostPort().toString(), "UDP", "flood-late", ""), lb);
        other.send(LbWire.request("OPTIONS", other.hostPort().toString(), "UDP", "other-2", ""), lb);
        other.expectResponse(200);

        for (int i = 0; i < 5; i++) {
            flooder.expectResponse(200);
        }
        assertEquals(5, node.requests("flood-").size(), "the burst of 5 passed, nothing after it");
        assertTrue(balancer.sourceGuard().banned(InetAddress.getByName(A), System.nanoTime()));
        assertEquals(4, balancer.counters().sourceDropped());
    }

    @Test
    void bannedSourcesTcpConnectionIsClosedAndItsNextOneRefused() throws Exception {
        HostPort lb = start(s -> s.withSources(new SourceLimits(1, 3, Duration.ofSeconds(30), 1000), Set.of()));
        try (Socket s = LbWire.connect(A, lb)) {
            OutputStream out = s.getOutputStream();
            // The connection took a token; two messages take the rest, the third is over the rate.
            for (int i = 0; i < 3; i++) {
                out.write(LbWire.request("OPTIONS", A + ":" + s.getLocalPort(), "TCP", "tcp-flood-" + i, "")
                        .getBytes(StandardCharsets.ISO_8859_1));
                if (i < 2) {
                    String answer = LbWire.readMessage(s.getInputStream());
                    assertTrue(answer != null && answer.startsWith("SIP/2.0 200"), answer);
                }
            }
            assertTrue(LbWire.closedWithin(s, LbWire.WAIT), "the banned source's connection is closed");
        }
        try (Socket again = LbWire.connect(A, lb)) {
            assertTrue(LbWire.closedWithin(again, LbWire.WAIT), "a banned source's new connection is refused");
        }
        assertEquals(2, node.requests("tcp-flood-").size());
        assertEquals(1, balancer.counters().connectionsRefused());
    }

    @Test
    void thousandAndFirstConnectionFromOneSourceIsRefused() throws Exception {
        // The default cap is 1,000 per source; 5 here keeps the test small.
        HostPort lb = start(s -> s.withConnections(new ConnectionLimits(Duration.ofSeconds(300),
                Duration.ofSeconds(10), 100, 5)));
        List<Socket> fromA = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            fromA.add(keep(LbWire.connect(A, lb)));
        }
        await(() -> balancer.tcpConnections() == 5, "5 connections from " + A + " accepted");

        Socket sixth = keep(LbWire.connect(A, lb));
        assertTrue(LbWire.closedWithin(sixth, LbWire.WAIT), "the connection over the per-source cap is closed");
        assertEquals(1, balancer.counters().connectionsRefused());

        Socket fromB = keep(LbWire.connect(B, lb));
        fromB.getOutputStream().write(LbWire.request("OPTIONS", B + ":" + fromB.getLocalPort(), "TCP", "from-b", "")
                .getBytes(StandardCharsets.ISO_8859_1));
        String answer = LbWire.readMessage(fromB.getInputStream());
        assertNotNull(answer);
        assertTrue(answer.startsWith("SIP/2.0 200"), answer);
        for (Socket s : fromA) {
            assertFalse(LbWire.closedWithin(s, Duration.ofMillis(1)), "the first five stay open");
        }
    }

    @Test
    void slowlorisConnectionIsClosedAtTheDeadline() throws Exception {
        Duration deadline = Duration.ofMillis(400);
        HostPort lb = start(s -> s.withConnections(new ConnectionLimits(Duration.ofSeconds(300), deadline, 100, 10)));
        try (Socket s = LbWire.connect(A, lb)) {
            String full = LbWire.request("MESSAGE", A + ":" + s.getLocalPort(), "TCP", "slow-1", "x".repeat(100));
            // Headers and 10 of the 100 body bytes the Content-Length promises, then nothing.
            long started = System.nanoTime();
            s.getOutputStream().write(full.substring(0, full.length() - 90).getBytes(StandardCharsets.ISO_8859_1));
            assertTrue(LbWire.closedWithin(s, LbWire.WAIT), "closed");
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertTrue(tookMillis >= deadline.toMillis() - 50, "not before the deadline: " + tookMillis + " ms");
        }
        assertEquals(1, balancer.counters().deadlineClosed());
        assertTrue(node.requests("slow-").isEmpty());
    }

    @Test
    void idleConnectionIsClosedWhileKeepAlivesKeepAnotherOpen() throws Exception {
        // Pings go every 100 ms: a second of idle time leaves a loaded machine plenty of slack.
        Duration idle = Duration.ofSeconds(1);
        HostPort lb = start(s -> s.withConnections(new ConnectionLimits(idle, Duration.ofSeconds(10), 100, 10)));
        Socket quiet = keep(LbWire.connect(A, lb));
        Socket pinging = keep(LbWire.connect(B, lb));
        long started = System.nanoTime();
        boolean quietClosed = false;
        int pongs = 0;
        while (!quietClosed) {
            pinging.getOutputStream().write("\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertEquals('\r', pinging.getInputStream().read());
            assertEquals('\n', pinging.getInputStream().read());
            pongs++;
            // Paces the pings (one per 100 ms) and watches the quiet connection at once.
            quietClosed = LbWire.closedWithin(quiet, Duration.ofMillis(100));
            assertTrue(System.nanoTime() - started < LbWire.WAIT.toNanos(), "the quiet connection is not closed");
        }
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(tookMillis >= idle.toMillis() - 50, "not before the idle timeout: " + tookMillis + " ms");
        assertTrue(pongs >= 3, "pings answered: " + pongs);
        pinging.getOutputStream().write(LbWire.request("OPTIONS", B + ":" + pinging.getLocalPort(), "TCP",
                "still-open", "").getBytes(StandardCharsets.ISO_8859_1));
        assertTrue(LbWire.readMessage(pinging.getInputStream()).startsWith("SIP/2.0 200"));
        assertEquals(1, balancer.counters().idleClosed());
    }

    @Test
    void oversizedMessageGets513() throws Exception {
        HostPort lb = start(s -> s.withMaxMessageBytes(4096));
        try (Socket s = LbWire.connect(A, lb)) {
            String big = LbWire.request("MESSAGE", A + ":" + s.getLocalPort(), "TCP", "big-tcp", "y".repeat(10_000));
            // Only the headers go out: the answer must not wait for a body it will never read.
            s.getOutputStream().write(big.substring(0, big.indexOf("\r\n\r\n") + 4)
                    .getBytes(StandardCharsets.ISO_8859_1));
            String answer = LbWire.readMessage(s.getInputStream());
            assertNotNull(answer);
            assertTrue(answer.startsWith("SIP/2.0 513 "), answer);
            assertTrue(answer.contains("Call-ID: big-tcp"), answer);
            assertTrue(LbWire.closedWithin(s, LbWire.WAIT), "the connection is closed after the answer");
        }
        Udp client = udp(A);
        client.send(LbWire.request("MESSAGE", client.hostPort().toString(), "UDP", "big-udp", "z".repeat(5_000)), lb);
        SipText answer = client.expectResponse(513).text();
        assertEquals("big-udp", answer.header("Call-ID").orElseThrow());
        assertTrue(node.requests("big-").isEmpty(), "nothing oversized reaches a node");
        assertEquals(2, balancer.counters().refusedOversized());
    }

    @Test
    void udpDatagramOf60000BytesIsForwardedWhole() throws Exception {
        HostPort lb = start(s -> s);
        Udp client = udp(A);
        String probe = LbWire.request("MESSAGE", client.hostPort().toString(), "UDP", "whole-60000",
                "b".repeat(10_000));
        String head = probe.substring(0, probe.length() - 10_000);
        String body = "b".repeat(60_000 - head.length());
        String request = head.replace("Content-Length: 10000", "Content-Length: " + body.length()) + body;
        assertEquals(60_000, request.length());

        client.send(request, lb);
        client.expectResponse(200);

        Udp.Received forwarded = node.requests("whole-60000").get(0);
        String text = new String(forwarded.bytes(), StandardCharsets.ISO_8859_1);
        assertTrue(forwarded.bytes().length > 60_000, "the balancer's Via was added, nothing cut: "
                + forwarded.bytes().length);
        assertTrue(text.endsWith("\r\n\r\n" + body), "the body arrived whole");
        assertArrayEquals(body.getBytes(StandardCharsets.ISO_8859_1), Arrays.copyOfRange(forwarded.bytes(),
                forwarded.bytes().length - body.length(), forwarded.bytes().length));
    }

    private Udp udp(String address) throws Exception {
        Udp u = new Udp(address);
        open.add(u);
        return u;
    }

    private Socket keep(Socket s) {
        open.add(s);
        return s;
    }

    private static void await(BooleanSupplier condition, String what) {
        Eventually.until(condition, LbWire.WAIT, what);
    }
}
