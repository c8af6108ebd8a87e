package org.p2psip.core.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

/** The whole pipeline over real sockets on 127.0.0.1. */
class NettyOverlayTransportTest {

    private static final HostPort ANY = new HostPort("127.0.0.1", 0);
    private static final OverlayRequestHandler ECHO = (type, payload) -> CompletableFuture.completedFuture(payload);
    private final List<NettyOverlayTransport> open = new ArrayList<>();

    @AfterEach
    void closeAll() {
        open.forEach(NettyOverlayTransport::close);
    }

    private NettyOverlayTransport start(String secret, int maxPayload, OverlayRequestHandler handler) throws Exception {
        NettyOverlayTransport t = NettyOverlayTransport.bind(ANY, OverlaySecret.of(secret), maxPayload, handler)
                .get(10, TimeUnit.SECONDS);
        open.add(t);
        return t;
    }

    private static OverlayException failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        return assertInstanceOf(OverlayException.class, e.getCause());
    }

    @Test
    void requestsAreAnsweredAndCorrelatedWhenManyAreInFlight() throws Exception {
        NettyOverlayTransport server = start("s", 1 << 20, ECHO);
        NettyOverlayTransport client = start("s", 1 << 20, ECHO);
        List<CompletableFuture<byte[]>> answers = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            answers.add(client.request(server.localAddress(), 3, new byte[] {(byte) i, (byte) (i >> 8)},
                    Duration.ofSeconds(10)));
        }
        for (int i = 0; i < 200; i++) {
            assertArrayEquals(new byte[] {(byte) i, (byte) (i >> 8)}, answers.get(i).get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void peerWithAnotherSecretIsRefusedAtTheHandshakeBeforeAnyFrame() throws Exception {
        AtomicInteger executed = new AtomicInteger();
        NettyOverlayTransport server = start("right", 1 << 20, (type, payload) -> {
            executed.incrementAndGet();
            return CompletableFuture.completedFuture(payload);
        });
        NettyOverlayTransport intruder = start("wrong", 1 << 20, ECHO);
        OverlayException e = failure(intruder.request(server.localAddress(), 1, new byte[] {1}, Duration.ofSeconds(5)));
        assertEquals(OverlayException.Reason.UNREACHABLE, e.reason());
        assertTrue(e.getMessage().contains("overlay-secret"), e.getMessage());
        // The intruder refuses the server's proof as the server refuses its own: which end sees it first varies.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (server.droppedFrames() == 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        assertEquals(1, server.droppedFrames());
        assertEquals(0, executed.get());
    }

    @Test
    void busyAddressFailsWithOneLine() throws Exception {
        NettyOverlayTransport first = start("s", 1024, ECHO);
        CompletableFuture<NettyOverlayTransport> second = NettyOverlayTransport.bind(first.localAddress(),
                OverlaySecret.of("s"), 1024, ECHO);
        OverlayException e = failure(second);
        assertTrue(e.getMessage().contains(first.localAddress().toString()), e.getMessage());
        assertTrue(!e.getMessage().contains("\n"));
    }

    @Test
    void oversizedPayloadIsRefusedBeforeSendingAndOversizedFramesCloseTheConnection() throws Exception {
        NettyOverlayTransport small = start("s", 1024, ECHO);
        NettyOverlayTransport big = start("s", 1 << 20, ECHO);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> small.request(big.localAddress(), 1, new byte[2048], Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS));
        assertInstanceOf(IllegalArgumentException.class, e.getCause());
        OverlayException closed = failure(big.request(small.localAddress(), 1, new byte[4096], Duration.ofSeconds(5)));
        assertEquals(OverlayException.Reason.CLOSED, closed.reason());
    }

    @Test
    void unreachablePeerAndClosedPeerFailFast() throws Exception {
        NettyOverlayTransport client = start("s", 1024, ECHO);
        NettyOverlayTransport gone = start("s", 1024, ECHO);
        HostPort address = gone.localAddress();
        gone.close();
        OverlayException e = failure(client.request(address, 1, new byte[0], Duration.ofSeconds(5)));
        assertEquals(OverlayException.Reason.UNREACHABLE, e.reason());
        client.close();
        assertEquals(OverlayException.Reason.CLOSED,
                failure(client.request(address, 1, new byte[0], Duration.ofSeconds(5))).reason());
    }

    @Test
    void handlerFailureReachesTheRequester() throws Exception {
        NettyOverlayTransport server = start("s", 1024,
                (t, p) -> CompletableFuture.failedFuture(new IllegalStateException("refused")));
        NettyOverlayTransport client = start("s", 1024, ECHO);
        OverlayException e = failure(client.request(server.localAddress(), 1, new byte[0], Duration.ofSeconds(5)));
        assertEquals(OverlayException.Reason.REMOTE_ERROR, e.reason());
        assertEquals("refused", e.getMessage());
    }
}
