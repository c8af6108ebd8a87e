package org.p2psip.core.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.TooLongFrameException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OverlayDispatcherTest {

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final PendingRequests pending = new PendingRequests(timer);

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    @Test
    void requestIsAnsweredWithItsOwnIdAndType() {
        EmbeddedChannel ch = new EmbeddedChannel(new OverlayDispatcher(pending,
                (type, payload) -> CompletableFuture.completedFuture(new byte[] {(byte) type, payload[0]})));
        ch.writeInbound(new OverlayFrame(OverlayFrame.Kind.REQUEST, 7, 42, new byte[] {9}));
        OverlayFrame reply = ch.readOutbound();
        assertEquals(OverlayFrame.Kind.RESPONSE, reply.kind());
        assertEquals(42, reply.requestId());
        assertEquals(7, reply.type());
        assertArrayEquals(new byte[] {7, 9}, reply.payload());
    }

    @Test
    void failingHandlerAnswersWithAnErrorFrameNamingTheReason() {
        EmbeddedChannel ch = new EmbeddedChannel(new OverlayDispatcher(pending,
                (type, payload) -> { throw new IllegalStateException("not the owner"); }));
        ch.writeInbound(new OverlayFrame(OverlayFrame.Kind.REQUEST, 1, 5, new byte[0]));
        OverlayFrame reply = ch.readOutbound();
        assertEquals(OverlayFrame.Kind.ERROR, reply.kind());
        assertEquals("not the owner", new String(reply.payload(), StandardCharsets.UTF_8));
    }

    @Test
    void answersCompleteTheirPendingRequestAndErrorsFailIt() throws Exception {
        EmbeddedChannel ch = new EmbeddedChannel(new OverlayDispatcher(pending, (t, p) -> new CompletableFuture<>()));
        long ok = pending.nextId();
        long bad = pending.nextId();
        CompletableFuture<byte[]> okFuture = pending.register(ok, Duration.ofSeconds(30), "ok");
        CompletableFuture<byte[]> badFuture = pending.register(bad, Duration.ofSeconds(30), "bad");
        ch.writeInbound(new OverlayFrame(OverlayFrame.Kind.RESPONSE, 1, ok, new byte[] {1}));
        ch.writeInbound(new OverlayFrame(OverlayFrame.Kind.ERROR, 1, bad, "nope".getBytes(StandardCharsets.UTF_8)));
        ch.writeInbound(new OverlayFrame(OverlayFrame.Kind.RESPONSE, 1, 999, new byte[0]));
        assertArrayEquals(new byte[] {1}, okFuture.get(1, TimeUnit.SECONDS));
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> badFuture.get(1, TimeUnit.SECONDS));
        OverlayException cause = assertInstanceOf(OverlayException.class, e.getCause());
        assertEquals(OverlayException.Reason.REMOTE_ERROR, cause.reason());
        assertEquals(0, pending.size());
    }

    @Test
    void unansweredRequestTimesOut() {
        long id = pending.nextId();
        CompletableFuture<byte[]> f = pending.register(id, Duration.ofMillis(50), "slow");
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> f.get(5, TimeUnit.SECONDS));
        assertEquals(OverlayException.Reason.TIMEOUT, ((OverlayException) e.getCause()).reason());
        assertFalse(pending.complete(new OverlayFrame(OverlayFrame.Kind.RESPONSE, 1, id, new byte[0])),
                "a late answer finds nobody waiting");
    }

    @Test
    void decodingFailureClosesTheConnection() {
        EmbeddedChannel ch = new EmbeddedChannel(new OverlayDispatcher(pending, (t, p) -> new CompletableFuture<>()));
        ch.pipeline().fireExceptionCaught(new TooLongFrameException("too long"));
        assertTrue(!ch.isOpen());
    }
}
