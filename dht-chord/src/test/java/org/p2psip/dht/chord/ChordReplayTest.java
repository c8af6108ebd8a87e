package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.NettyOverlayTransport;
import org.p2psip.core.overlay.OverlaySecret;
import org.p2psip.core.overlay.RecordingTcpProxy;

/**
 * A real Chord node on 127.0.0.1 and a recorder between it and a legitimate
 * peer: what the recorder replays on connections of its own is refused, and
 * a replayed PUT_IF does not bring back a binding removed since.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChordReplayTest {

    private final LoopbackRing ring = new LoopbackRing(1, Clock.systemUTC());
    private NettyOverlayTransport peer;
    private RecordingTcpProxy recorder;

    @AfterEach
    void stop() {
        if (recorder != null) {
            recorder.close();
        }
        if (peer != null) {
            peer.close();
        }
        ring.close();
    }

    private static Optional<VersionedValue> read(ChordDht node, String key) throws Exception {
        return node.get(key).get(10, TimeUnit.SECONDS);
    }

    @Test
    void replayedGetAndPutIfFramesAreRefusedAndDoNotBringARemovedBindingBack() throws Exception {
        ChordDht node = ring.add();
        peer = NettyOverlayTransport.bind(new HostPort("127.0.0.1", 0), OverlaySecret.of(LoopbackRing.SECRET),
                1 << 20, (type, payload) -> CompletableFuture.failedFuture(new IllegalStateException("client")))
                .get(10, TimeUnit.SECONDS);
        recorder = new RecordingTcpProxy(node.node().overlay());
        ChordClient client = new ChordClient(peer, Duration.ofSeconds(5));
        NodeRef throughRecorder = new NodeRef(node.node().id(), recorder.address(), Optional.empty());

        byte[] binding = "sip:alice@192.0.2.1".getBytes(StandardCharsets.UTF_8);
        ChordClient.WriteAnswer put = client.putIfVersion(throughRecorder, "alice", Dht.ABSENT, binding,
                Instant.now().plusSeconds(3600)).get(10, TimeUnit.SECONDS);
        assertEquals(ChordWire.APPLIED, put.status());
        assertEquals(ChordWire.FOUND, client.get(throughRecorder, "alice", false).get(10, TimeUnit.SECONDS).status());
        // Both requests were recorded before they were forwarded, and both have been answered.
        byte[] recorded = recorder.sentByClient(0);

        VersionedValue stored = read(node, "alice").orElseThrow();
        assertTrue(node.removeIfVersion("alice", stored.version()).get(10, TimeUnit.SECONDS));
        assertTrue(read(node, "alice").isEmpty());

        RecordingTcpProxy.Replayed replay = RecordingTcpProxy.replay(node.node().overlay(), recorded,
                Duration.ofSeconds(5));
        assertTrue(replay.closedByPeer(), "the node closes the replaying connection");
        assertEquals(RecordingTcpProxy.HANDSHAKE_BYTES, replay.bytesAnswered(),
                "a hello and a proof, and no answer to the GET");
        assertTrue(read(node, "alice").isEmpty(), "the replayed PUT_IF did not bring alice back");
    }

    @Test
    void unauthenticatedFourMebibyteLengthPrefixIsClosedWithoutWaitingForTheFrame() throws Exception {
        ChordDht node = ring.add();
        HostPort overlay = node.node().overlay();
        try (Socket attacker = new Socket()) {
            attacker.connect(new InetSocketAddress(overlay.host(), overlay.port()), 5_000);
            OutputStream out = attacker.getOutputStream();
            out.write(new byte[] {0, 0x40, 0, 0});
            out.write(new byte[1024]);
            out.flush();
            RecordingTcpProxy.Replayed r = RecordingTcpProxy.readUntilClosed(attacker, Duration.ofSeconds(4));
            assertTrue(r.closedByPeer(), "closed well before the handshake deadline, without the other 4 MiB");
            assertEquals(RecordingTcpProxy.HELLO_BYTES, r.bytesAnswered());
        }
        assertEquals(Dht.ABSENT, read(node, "anything").map(VersionedValue::version).orElse(Dht.ABSENT));
    }
}
