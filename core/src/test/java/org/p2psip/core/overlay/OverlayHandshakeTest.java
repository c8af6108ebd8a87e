package org.p2psip.core.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import org.junit.jupiter.api.Test;

/**
 * The TCP handshake and session framing as a real connection runs them,
 * each end in an {@link EmbeddedChannel}, bytes carried between them by hand.
 */
class OverlayHandshakeTest {

    private static final OverlaySecret SECRET = OverlaySecret.of("cluster-secret");
    private static final int MAX_FRAME = 1 << 20;

    private final OverlayRefusals refusals = new OverlayRefusals();
    private final OverlayHandshake.Admission admission = new OverlayHandshake.Admission(8);

    private EmbeddedChannel end(OverlaySecret secret, FrameSession.Role role, OverlayHandshake.Admission admitted) {
        return new EmbeddedChannel(
                new OverlayHandshake(secret, role, Duration.ofSeconds(5), admitted, refusals),
                new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4, 0, 4),
                new LengthFieldPrepender(4),
                new SessionFraming(refusals));
    }

    /** Everything {@code from} has written so far, as one byte array. */
    private static byte[] written(EmbeddedChannel from) {
        ByteBuf all = Unpooled.buffer();
        for (ByteBuf b; (b = from.readOutbound()) != null; ) {
            all.writeBytes(b);
            b.release();
        }
        return ByteBufUtil.getBytes(all);
    }

    private static void deliver(byte[] bytes, EmbeddedChannel to) {
        if (bytes.length > 0 && to.isOpen()) {
            to.writeInbound(Unpooled.wrappedBuffer(bytes));
        }
    }

    /** Carries bytes both ways until neither end has anything more to say. */
    private static void exchange(EmbeddedChannel a, EmbeddedChannel b) {
        for (int round = 0; round < 10; round++) {
            byte[] ab = written(a);
            byte[] ba = written(b);
            if (ab.length == 0 && ba.length == 0) {
                return;
            }
            deliver(ab, b);
            deliver(ba, a);
        }
    }

    private static String readString(EmbeddedChannel ch) {
        ByteBuf in = ch.readInbound();
        if (in == null) {
            return null;
        }
        try {
            return in.toString(StandardCharsets.UTF_8);
        } finally {
            in.release();
        }
    }

    private static ByteBuf text(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }

    @Test
    void bothEndsAuthenticateAndThenExchangeSealedFrames() {
        EmbeddedChannel client = end(SECRET, FrameSession.Role.INITIATOR, admission);
        EmbeddedChannel server = end(SECRET, FrameSession.Role.ACCEPTOR, admission);
        exchange(client, server);
        assertTrue(OverlayHandshake.authenticated(client).isSuccess());
        assertTrue(OverlayHandshake.authenticated(server).isSuccess());
        assertNull(client.pipeline().get(OverlayHandshake.class), "the handshake handler leaves once done");
        assertEquals(0, admission.inHandshake());

        client.writeOutbound(text("GET alice"));
        exchange(client, server);
        assertEquals("GET alice", readString(server));
        server.writeOutbound(text("alice@10.0.0.1"));
        exchange(client, server);
        assertEquals("alice@10.0.0.1", readString(client));
        assertEquals(0, refusals.count());
    }

    @Test
    void framesSentRightBehindTheProofAreNotLost() {
        EmbeddedChannel client = end(SECRET, FrameSession.Role.INITIATOR, admission);
        EmbeddedChannel server = end(SECRET, FrameSession.Role.ACCEPTOR, admission);
        deliver(written(client), server);
        deliver(written(server), client);
        // The client is authenticated now; its proof and first frame reach the server in one read.
        client.writeOutbound(text("GET alice"));
        deliver(written(client), server);
        assertEquals("GET alice", readString(server));
    }

    @Test
    void replayedFrameOnItsOwnConnectionClosesIt() {
        EmbeddedChannel client = end(SECRET, FrameSession.Role.INITIATOR, admission);
        EmbeddedChannel server = end(SECRET, FrameSession.Role.ACCEPTOR, admission);
        exchange(client, server);
        client.writeOutbound(text("PUT_IF alice"));
        byte[] frame = written(client);
        deliver(frame, server);
        assertEquals("PUT_IF alice", readString(server));
        deliver(frame, server);
        assertNull(readString(server));
        assertFalse(server.isOpen());
        assertEquals(1, refusals.count());
    }

    @Test
    void handshakeAndFramesRecordedOnOneConnectionAreRefusedOnTheNext() {
        EmbeddedChannel client = end(SECRET, FrameSession.Role.INITIATOR, admission);
        EmbeddedChannel server = end(SECRET, FrameSession.Role.ACCEPTOR, admission);
        byte[] recorded = written(client);
        deliver(recorded, server);
        deliver(written(server), client);
        client.writeOutbound(text("GET alice"));
        byte[] rest = written(client);
        deliver(rest, server);
        assertEquals("GET alice", readString(server));

        EmbeddedChannel next = end(SECRET, FrameSession.Role.ACCEPTOR, admission);
        deliver(recorded, next);
        deliver(rest, next);
        assertNull(readString(next));
        assertFalse(next.isOpen(), "the recorded proof answers another nonce");
        assertFalse(OverlayHandshake.authenticated(next).isSuccess());
    }

    @Test
    void peerWithAnotherSecretIsClosedOnBothEnds() {
        EmbeddedChannel intruder = end(OverlaySecret.of("guess"), FrameSession.Role.INITIATOR, admission);
        EmbeddedChannel server = end(SECRET, FrameSession.Role.ACCEPTOR, admission);
        exchange(intruder, server);
        assertFalse(server.isOpen());
        assertFalse(intruder.isOpen());
        assertEquals(0, admission.inHandshake());
    }

    @Test
    void unauthenticatedLengthPrefixOfFourMebibytesClosesAtOnceWithoutBuffering() {
        EmbeddedChannel server = end(SECRET, FrameSession.Role.ACCEPTOR, admission);
        ByteBuf flood = Unpooled.buffer().writeInt(4 << 20).writeBytes(new byte[60_000]);
        server.writeInbound(flood);
        assertFalse(server.isOpen());
        assertNull(server.readInbound());
        assertEquals(0, flood.refCnt(), "nothing of it is held");
    }

    @Test
    void aLengthPrefixInPlaceOfTheProofClosesTheConnection() {
        EmbeddedChannel client = end(SECRET, FrameSession.Role.INITIATOR, admission);
        EmbeddedChannel server = end(SECRET, FrameSession.Role.ACCEPTOR, admission);
        byte[] hello = written(client);
        ByteBuf flood = Unpooled.buffer().writeBytes(hello).writeInt(4 << 20).writeBytes(new byte[4096]);
        server.writeInbound(flood);
        assertFalse(server.isOpen());
        assertNull(server.readInbound());
    }

    @Test
    void readsBeforeAuthenticationAreSmallerThanAFrame() {
        EmbeddedChannel server = end(SECRET, FrameSession.Role.ACCEPTOR, admission);
        assertEquals(OverlayHandshake.PRE_AUTH_READ_BYTES,
                server.config().getRecvByteBufAllocator().newHandle().guess());
        EmbeddedChannel client = end(SECRET, FrameSession.Role.INITIATOR, admission);
        exchange(client, server);
        assertTrue(server.config().getRecvByteBufAllocator().newHandle().guess()
                > OverlayHandshake.PRE_AUTH_READ_BYTES, "full-size reads once authenticated");
    }

    @Test
    void handshakeNotCompletedWithinTheDeadlineClosesTheConnection() {
        EmbeddedChannel server = end(SECRET, FrameSession.Role.ACCEPTOR, admission);
        server.writeInbound(Unpooled.wrappedBuffer(new byte[] {OverlayFrame.MAGIC}));
        server.advanceTimeBy(4, TimeUnit.SECONDS);
        server.runScheduledPendingTasks();
        assertTrue(server.isOpen());
        server.advanceTimeBy(2, TimeUnit.SECONDS);
        server.runScheduledPendingTasks();
        assertFalse(server.isOpen());
        assertEquals(0, admission.inHandshake());
    }

    @Test
    void connectionsBeyondTheHandshakeCapAreClosedAtOnce() {
        OverlayHandshake.Admission one = new OverlayHandshake.Admission(1);
        EmbeddedChannel first = end(SECRET, FrameSession.Role.ACCEPTOR, one);
        EmbeddedChannel second = end(SECRET, FrameSession.Role.ACCEPTOR, one);
        assertTrue(first.isOpen());
        assertFalse(second.isOpen());
        EmbeddedChannel client = end(SECRET, FrameSession.Role.INITIATOR, admission);
        exchange(client, first);
        assertTrue(OverlayHandshake.authenticated(first).isSuccess());
        assertTrue(end(SECRET, FrameSession.Role.ACCEPTOR, one).isOpen(), "an authenticated one frees its place");
    }
}
