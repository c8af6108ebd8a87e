package org.p2psip.core.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;

/** The UDP overlay pipeline over real datagram sockets on 127.0.0.1. */
class NettyUdpOverlayTransportTest {

    private static final HostPort ANY = new HostPort("127.0.0.1", 0);
    private static final OverlayRequestHandler ECHO = (type, payload) -> CompletableFuture.completedFuture(payload);
    private final List<NettyUdpOverlayTransport> open = new ArrayList<>();

    @AfterEach
    void closeAll() {
        open.forEach(NettyUdpOverlayTransport::close);
    }

    private NettyUdpOverlayTransport start(String secret, Duration retry, OverlayRequestHandler handler)
            throws Exception {
        NettyUdpOverlayTransport t = NettyUdpOverlayTransport.bind(ANY, OverlaySecret.of(secret), 1 << 20, retry,
                handler).get(10, TimeUnit.SECONDS);
        open.add(t);
        return t;
    }

    private static OverlayException failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        return assertInstanceOf(OverlayException.class, e.getCause());
    }

    @Test
    void concurrentRequestsAreAnsweredAndCorrelated() throws Exception {
        NettyUdpOverlayTransport server = start("s", Duration.ofMillis(200), ECHO);
        NettyUdpOverlayTransport client = start("s", Duration.ofMillis(200), ECHO);
        List<CompletableFuture<byte[]>> answers = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            answers.add(client.request(server.localAddress(), 7, new byte[] {(byte) i, (byte) (i >> 8)},
                    Duration.ofSeconds(10)));
        }
        for (int i = 0; i < 300; i++) {
            assertArrayEquals(new byte[] {(byte) i, (byte) (i >> 8)}, answers.get(i).get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void requestsAreServedOnTheEventLoopANodeMayRunOn() throws Exception {
        CompletableFuture<Thread> servedOn = new CompletableFuture<>();
        NettyUdpOverlayTransport server = start("s", Duration.ofMillis(200), (type, payload) -> {
            servedOn.complete(Thread.currentThread());
            return CompletableFuture.completedFuture(payload);
        });
        NettyUdpOverlayTransport client = start("s", Duration.ofMillis(200), ECHO);
        client.request(server.localAddress(), 7, new byte[] {1}, Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS);
        Thread loop = server.eventLoop().submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
        assertEquals(loop, servedOn.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aTransportClosedFromItsOwnEventLoopClosesWithoutWaitingOnItself() throws Exception {
        NettyUdpOverlayTransport server = start("s", Duration.ofMillis(200), ECHO);
        server.eventLoop().submit(server::close).get(10, TimeUnit.SECONDS);
        assertEquals(OverlayException.Reason.CLOSED, failure(server.request(server.localAddress(), 7, new byte[] {1},
                Duration.ofSeconds(1))).reason());
    }

    @Test
    void framesLargerThanADatagramAreFragmentedAndReassembled() throws Exception {
        NettyUdpOverlayTransport server = start("s", Duration.ofMillis(200), ECHO);
        NettyUdpOverlayTransport client = start("s", Duration.ofMillis(200), ECHO);
        byte[] big = new byte[300 * 1024];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 131 + 7);
        }
        assertArrayEquals(big, client.request(server.localAddress(), 1, big, Duration.ofSeconds(10))
                .get(10, TimeUnit.SECONDS));
    }

    @Test
    void aSlowRequestIsResentButExecutedOnce() throws Exception {
        AtomicInteger executions = new AtomicInteger();
        OverlayRequestHandler slow = (type, payload) -> {
            executions.incrementAndGet();
            return CompletableFuture.supplyAsync(() -> payload,
                    CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS));
        };
        NettyUdpOverlayTransport server = start("s", Duration.ofMillis(20), slow);
        NettyUdpOverlayTransport client = start("s", Duration.ofMillis(20), ECHO);
        byte[] answer = client.request(server.localAddress(), 2, "once".getBytes(StandardCharsets.UTF_8),
                Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
        assertEquals("once", new String(answer, StandardCharsets.UTF_8));
        assertTrue(client.retransmissions() > 0, "the request should have been resent while the server was slow");
        assertEquals(1, executions.get(), "a resent request must be executed at most once");
    }

    @Test
    void peerWithAnotherSecretIsNeverAnswered() throws Exception {
        AtomicInteger executions = new AtomicInteger();
        NettyUdpOverlayTransport server = start("right", Duration.ofMillis(50), (type, payload) -> {
            executions.incrementAndGet();
            return CompletableFuture.completedFuture(payload);
        });
        NettyUdpOverlayTransport intruder = start("wrong", Duration.ofMillis(50), ECHO);
        OverlayException e = failure(intruder.request(server.localAddress(), 1, new byte[] {1},
                Duration.ofMillis(500)));
        assertEquals(OverlayException.Reason.TIMEOUT, e.reason());
        assertTrue(server.droppedFrames() > 0);
        assertEquals(0, executions.get());
    }

    @Test
    void aRequestToAClosedPortFailsAsRefusedLongBeforeItsTimeout() throws Exception {
        NettyUdpOverlayTransport client = start("s", Duration.ofMillis(50), ECHO);
        int closed;
        try (DatagramSocket gone = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
            closed = gone.getLocalPort();
        }
        long started = System.nanoTime();
        OverlayException e = failure(client.request(new HostPort("127.0.0.1", closed), 1, new byte[] {1},
                Duration.ofSeconds(8)));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertEquals(OverlayException.Reason.REFUSED, e.reason(), e.getMessage());
        assertTrue(e.getMessage().contains("port is closed"), e.getMessage());
        assertTrue(tookMillis < 4_000, "refused after " + tookMillis + " ms, not at the 8 s timeout");
    }

    @Test
    void aBoundButSilentPeerIsNotTakenForClosed() throws Exception {
        NettyUdpOverlayTransport client = start("s", Duration.ofMillis(50), ECHO);
        try (DatagramSocket silent = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
            OverlayException e = failure(client.request(new HostPort("127.0.0.1", silent.getLocalPort()), 1,
                    new byte[] {1}, Duration.ofMillis(800)));
            assertEquals(OverlayException.Reason.TIMEOUT, e.reason(), e.getMessage());
        }
    }

    @Test
    void remoteFailureArrivesAsRemoteError() throws Exception {
        NettyUdpOverlayTransport server = start("s", Duration.ofMillis(100),
                (type, payload) -> CompletableFuture.failedFuture(new IllegalStateException("no such key")));
        NettyUdpOverlayTransport client = start("s", Duration.ofMillis(100), ECHO);
        OverlayException e = failure(client.request(server.localAddress(), 1, new byte[0], Duration.ofSeconds(5)));
        assertEquals(OverlayException.Reason.REMOTE_ERROR, e.reason());
        assertTrue(e.getMessage().contains("no such key"));
    }

    @Test
    void busyPortIsAOneLineFailureAndClosedTransportRefusesRequests() throws Exception {
        NettyUdpOverlayTransport first = start("s", Duration.ofMillis(100), ECHO);
        ExecutionException e = assertThrows(ExecutionException.class, () -> NettyUdpOverlayTransport.bind(
                first.localAddress(), OverlaySecret.of("s"), 1024, Duration.ofMillis(100), ECHO)
                .get(10, TimeUnit.SECONDS));
        OverlayException busy = assertInstanceOf(OverlayException.class, e.getCause());
        assertTrue(busy.getMessage().contains("already in use"), busy.getMessage());
        assertTrue(!busy.getMessage().contains("\n"));
        first.close();
        assertEquals(OverlayException.Reason.CLOSED, failure(first.request(new HostPort("127.0.0.1", 9), 1,
                new byte[0], Duration.ofSeconds(1))).reason());
    }

    @Test
    void replayedRequestDatagramIsNotAnsweredAgain() throws Exception {
        AtomicInteger executions = new AtomicInteger();
        NettyUdpOverlayTransport server = start("s", Duration.ofMillis(100), (type, payload) -> {
            executions.incrementAndGet();
            return CompletableFuture.completedFuture(payload);
        });
        byte[] datagram = SealedDatagrams.datagram(OverlaySecret.of("s"), server.localAddress(),
                new OverlayFrame(OverlayFrame.Kind.REQUEST, 1, 77, new byte[] {5}), Clock.systemUTC());
        try (DatagramSocket attacker = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
            assertNotNull(SealedDatagrams.sendAndListen(attacker, server.localAddress(), datagram,
                    Duration.ofSeconds(5)), "the original is answered");
            assertNull(SealedDatagrams.sendAndListen(attacker, server.localAddress(), datagram,
                    Duration.ofMillis(500)), "its replay is not");
        }
        assertEquals(1, executions.get());
        assertEquals(1, server.droppedFrames());
    }

    @Test
    void datagramStampedOutsideTheWindowIsRefused() throws Exception {
        NettyUdpOverlayTransport server = start("s", Duration.ofMillis(100), ECHO);
        Clock past = Clock.offset(Clock.systemUTC(), NettyUdpOverlayTransport.FRESHNESS_WINDOW.plusSeconds(5).negated());
        byte[] old = SealedDatagrams.datagram(OverlaySecret.of("s"), server.localAddress(),
                new OverlayFrame(OverlayFrame.Kind.REQUEST, 1, 78, new byte[] {5}), past);
        try (DatagramSocket attacker = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
            assertNull(SealedDatagrams.sendAndListen(attacker, server.localAddress(), old, Duration.ofMillis(500)));
        }
        assertEquals(1, server.droppedFrames());
    }

    @Test
    void replayedAnswerDatagramIsRefusedLikeARequest() throws Exception {
        NettyUdpOverlayTransport client = start("s", Duration.ofMillis(50), ECHO);
        byte[] answer = SealedDatagrams.datagram(OverlaySecret.of("s"), client.localAddress(),
                new OverlayFrame(OverlayFrame.Kind.RESPONSE, 1, 79, new byte[] {5}), Clock.systemUTC());
        try (DatagramSocket recorder = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
            SealedDatagrams.sendAndListen(recorder, client.localAddress(), answer, Duration.ofMillis(1));
            SealedDatagrams.sendAndListen(recorder, client.localAddress(), answer, Duration.ofMillis(1));
        }
        // The first is authentic and fresh (and answers nothing pending); the copy is refused.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (client.droppedFrames() == 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        assertEquals(1, client.droppedFrames());
    }
}
