package org.p2psip.core.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;

/**
 * What an unauthenticated or replaying TCP peer gets from a real transport
 * on 127.0.0.1: a handshake, and then a closed connection.
 */
class OverlayPreAuthenticationTest {

    private static final HostPort ANY = new HostPort("127.0.0.1", 0);
    private static final OverlayRequestHandler ECHO = (type, payload) -> CompletableFuture.completedFuture(payload);
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private NettyOverlayTransport start(Duration deadline, int maxInHandshake) throws Exception {
        NettyOverlayTransport t = NettyOverlayTransport.bind(ANY, OverlaySecret.of("s"), 8 << 20, deadline,
                maxInHandshake, ECHO).get(10, TimeUnit.SECONDS);
        open.add(t);
        return t;
    }

    private static Socket connect(HostPort to) throws Exception {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(to.host(), to.port()), 5_000);
        return s;
    }

    @Test
    void unauthenticatedFourMebibyteLengthPrefixIsClosedWithoutWaitingForTheFrame() throws Exception {
        NettyOverlayTransport node = start(Duration.ofSeconds(30), 64);
        try (Socket attacker = connect(node.localAddress())) {
            OutputStream out = attacker.getOutputStream();
            out.write(new byte[] {0, 0x40, 0, 0});
            out.write(new byte[1024]);
            out.flush();
            // Closed long before the deadline: the node did not wait for the other 4 MiB.
            RecordingTcpProxy.Replayed r = RecordingTcpProxy.readUntilClosed(attacker, Duration.ofSeconds(5));
            assertTrue(r.closedByPeer());
            assertEquals(OverlayHandshake.HELLO_BYTES, r.bytesAnswered(), "only the node's hello");
        }
        assertEquals(1, node.droppedFrames());
    }

    @Test
    void silentConnectionIsClosedAtTheHandshakeDeadline() throws Exception {
        NettyOverlayTransport node = start(Duration.ofMillis(300), 64);
        try (Socket idle = connect(node.localAddress())) {
            RecordingTcpProxy.Replayed r = RecordingTcpProxy.readUntilClosed(idle, Duration.ofSeconds(10));
            assertTrue(r.closedByPeer());
        }
    }

    @Test
    void connectionsBeyondTheHandshakeCapAreClosedWhileAuthenticatedPeersAreServed() throws Exception {
        NettyOverlayTransport node = start(Duration.ofSeconds(30), 2);
        List<Socket> idle = new ArrayList<>();
        try {
            idle.add(connect(node.localAddress()));
            idle.add(connect(node.localAddress()));
            // Both hellos arriving shows both were admitted before the third tries.
            for (Socket s : idle) {
                s.setSoTimeout(5_000);
                assertEquals(OverlayHandshake.HELLO_BYTES, s.getInputStream().readNBytes(OverlayHandshake.HELLO_BYTES)
                        .length);
            }
            try (Socket third = connect(node.localAddress())) {
                RecordingTcpProxy.Replayed r = RecordingTcpProxy.readUntilClosed(third, Duration.ofSeconds(5));
                assertTrue(r.closedByPeer());
                assertEquals(0, r.bytesAnswered());
            }
        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
        NettyOverlayTransport peer = NettyOverlayTransport.bind(ANY, OverlaySecret.of("s"), 1024, ECHO)
                .get(10, TimeUnit.SECONDS);
        open.add(peer);
        // Once the idle ones are gone, a real peer gets in again.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        byte[] answer = null;
        while (answer == null) {
            try {
                answer = peer.request(node.localAddress(), 1, new byte[] {7}, Duration.ofSeconds(2)).get();
            } catch (Exception e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
            }
        }
        assertArrayEquals(new byte[] {7}, answer);
    }

    @Test
    void replayedConnectionGetsTheHandshakeAndNoAnswer() throws Exception {
        NettyOverlayTransport node = start(Duration.ofSeconds(30), 64);
        NettyOverlayTransport peer = NettyOverlayTransport.bind(ANY, OverlaySecret.of("s"), 1024, ECHO)
                .get(10, TimeUnit.SECONDS);
        open.add(peer);
        RecordingTcpProxy proxy = new RecordingTcpProxy(node.localAddress());
        open.add(proxy);
        assertArrayEquals(new byte[] {42}, peer.request(proxy.address(), 1, new byte[] {42}, Duration.ofSeconds(5))
                .get(10, TimeUnit.SECONDS));
        byte[] recorded = proxy.sentByClient(0);
        assertTrue(recorded.length > OverlayHandshake.HANDSHAKE_BYTES, "a hello, a proof and a request");

        RecordingTcpProxy.Replayed r = RecordingTcpProxy.replay(node.localAddress(), recorded, Duration.ofSeconds(5));
        assertTrue(r.closedByPeer());
        assertEquals(OverlayHandshake.HANDSHAKE_BYTES, r.bytesAnswered(), "a hello and a proof, never an answer");
    }
}
