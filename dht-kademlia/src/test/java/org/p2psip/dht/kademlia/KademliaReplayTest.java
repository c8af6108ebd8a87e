package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.NettyUdpOverlayTransport;
import org.p2psip.core.overlay.OverlayFrame;
import org.p2psip.core.overlay.OverlaySecret;
import org.p2psip.core.overlay.SealedDatagrams;

/**
 * A real Kademlia node on 127.0.0.1 and datagrams exactly as a legitimate
 * peer seals them, sent from a socket of the test's own: the original is
 * served, its replay is not answered, and a replayed WRITE does not bring
 * back a binding removed since. A datagram stamped outside the window is
 * refused even the first time.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KademliaReplayTest {

    private static final OverlaySecret SECRET = OverlaySecret.of(LoopbackOverlay.SECRET);
    private static final Duration ANSWER_WAIT = Duration.ofSeconds(5);
    private static final Duration SILENCE = Duration.ofMillis(700);

    private final LoopbackOverlay overlay = new LoopbackOverlay(1, Clock.systemUTC());

    @AfterEach
    void stop() {
        overlay.close();
    }

    private static Optional<VersionedValue> read(KademliaDht node, String key) throws Exception {
        return node.get(key).get(10, TimeUnit.SECONDS);
    }

    /** A request datagram as a peer holding the secret seals it, and its request id. */
    private record Sealed(byte[] datagram, long requestId) {
    }

    private static Sealed sealed(HostPort to, int type, byte[] payload, Clock clock) {
        long id = ThreadLocalRandom.current().nextLong();
        OverlayFrame frame = new OverlayFrame(OverlayFrame.Kind.REQUEST, type, id, payload);
        return new Sealed(SealedDatagrams.datagram(SECRET, to, frame, clock), id);
    }

    /** Sends the datagram and returns the node's answer to it, or null when none comes within {@code wait}. */
    private static OverlayFrame exchange(DatagramSocket socket, HostPort to, Sealed request, Duration wait)
            throws Exception {
        SealedDatagrams.send(socket, to, request.datagram());
        return SealedDatagrams.answerTo(socket, SECRET, request.requestId(), wait);
    }

    /**
     * A sender as far from {@code key} as an id can be, so the node, which
     * learns every sender's contact, stays the key's coordinator.
     */
    private static Contact farFrom(String key, DatagramSocket socket) {
        BigInteger id = IdSpace.SHA1.idOf(key).xor(IdSpace.SHA1.size().subtract(BigInteger.ONE));
        return new Contact(id, new HostPort("127.0.0.1", socket.getLocalPort()), Optional.empty());
    }

    private static byte[] write(Contact sender, String key, byte[] value) {
        return new KademliaWire.Out().sender(sender, true).text(key).num(Dht.ABSENT).flag(false).blob(value)
                .num(System.currentTimeMillis() + 3_600_000).num(ThreadLocalRandom.current().nextLong()).bytes();
    }

    @Test
    void replayedFindValueAndWriteDatagramsAreRefusedAndDoNotBringARemovedBindingBack() throws Exception {
        KademliaDht node = overlay.add();
        HostPort at = node.contact().overlay();
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
            Contact sender = farFrom("alice", socket);
            Sealed writeAlice = sealed(at, KademliaWire.WRITE,
                    write(sender, "alice", "sip:alice@192.0.2.1".getBytes(StandardCharsets.UTF_8)), Clock.systemUTC());
            OverlayFrame written = exchange(socket, at, writeAlice, ANSWER_WAIT);
            assertNotNull(written, "the original WRITE is answered");
            assertEquals(OverlayFrame.Kind.RESPONSE, written.kind());
            assertArrayEquals(new byte[] {1}, written.payload(), "and applied");
            assertTrue(read(node, "alice").isPresent());

            Sealed findAlice = sealed(at, KademliaWire.FIND_VALUE,
                    new KademliaWire.Out().sender(sender, true).text("alice").bytes(), Clock.systemUTC());
            assertNotNull(exchange(socket, at, findAlice, ANSWER_WAIT), "the original read");
            assertNull(exchange(socket, at, findAlice, SILENCE), "its replay gets nothing");

            VersionedValue stored = read(node, "alice").orElseThrow();
            assertTrue(node.removeIfVersion("alice", stored.version()).get(10, TimeUnit.SECONDS));
            assertTrue(read(node, "alice").isEmpty());

            assertNull(exchange(socket, at, writeAlice, SILENCE), "the WRITE's replay");
            assertTrue(read(node, "alice").isEmpty(), "the replayed WRITE did not bring alice back");
        }
    }

    @Test
    void writeDatagramStampedBeforeTheWindowIsRefused() throws Exception {
        KademliaDht node = overlay.add();
        HostPort at = node.contact().overlay();
        Clock past = Clock.offset(Clock.systemUTC(),
                NettyUdpOverlayTransport.FRESHNESS_WINDOW.plusSeconds(10).negated());
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
            Contact sender = farFrom("bob", socket);
            Sealed old = sealed(at, KademliaWire.WRITE,
                    write(sender, "bob", "sip:bob@192.0.2.2".getBytes(StandardCharsets.UTF_8)), past);
            assertNull(exchange(socket, at, old, SILENCE));
        }
        assertTrue(read(node, "bob").isEmpty());
    }

    @Test
    void writeDatagramSealedForAnotherNodeIsRefused() throws Exception {
        KademliaDht node = overlay.add();
        HostPort at = node.contact().overlay();
        HostPort elsewhere = new HostPort("127.0.0.1", at.port() == 65535 ? at.port() - 1 : at.port() + 1);
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
            Contact sender = farFrom("carol", socket);
            Sealed forAnother = sealed(elsewhere, KademliaWire.WRITE,
                    write(sender, "carol", "sip:carol@192.0.2.3".getBytes(StandardCharsets.UTF_8)), Clock.systemUTC());
            assertNull(exchange(socket, at, forAnother, SILENCE));
        }
        assertTrue(read(node, "carol").isEmpty());
    }
}
