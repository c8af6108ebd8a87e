package org.p2psip.core.overlay;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Correlation: an answer completes the pending request with its id; a
 * request goes to the backend's {@link OverlayRequestHandler}, whose result
 * is written back on the same channel with the same id (a RESPONSE, or an
 * ERROR carrying a one-line reason). Decoding failures such as an oversized
 * frame close the connection, since its byte stream can no longer be trusted.
 */
public final class OverlayDispatcher extends SimpleChannelInboundHandler<OverlayFrame> {

    private static final Logger LOG = LoggerFactory.getLogger(OverlayDispatcher.class);
    private static final int MAX_ERROR_CHARS = 300;

    private final PendingRequests pending;
    private final OverlayRequestHandler handler;

    public OverlayDispatcher(PendingRequests pending, OverlayRequestHandler handler) {
        this.pending = pending;
        this.handler = handler;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, OverlayFrame frame) {
        if (frame.kind() != OverlayFrame.Kind.REQUEST) {
            pending.complete(frame);
            return;
        }
        CompletableFuture<byte[]> answer;
        try {
            answer = handler.handle(frame.type(), frame.payload());
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete((payload, error) -> {
            OverlayFrame reply = error == null
                    ? new OverlayFrame(OverlayFrame.Kind.RESPONSE, frame.type(), frame.requestId(), payload)
                    : new OverlayFrame(OverlayFrame.Kind.ERROR, frame.type(), frame.requestId(), reason(error));
            ctx.writeAndFlush(reply);
        });
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("closing overlay connection {}: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }

    private static byte[] reason(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        String text = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
        text = text.replace('\n', ' ');
        if (text.length() > MAX_ERROR_CHARS) {
            text = text.substring(0, MAX_ERROR_CHARS);
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
