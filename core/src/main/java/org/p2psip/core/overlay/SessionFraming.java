package org.p2psip.core.overlay;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * Authenticates the frames of an overlay TCP connection with its
 * {@link FrameSession} (set up by {@link OverlayHandshake}): outbound it
 * seals each frame with the next sequence number and the session MAC,
 * inbound it opens each length-delimited frame and passes on the body. A
 * frame that is forged, from another connection, replayed or out of order
 * closes the connection — on a byte stream one bad frame means nothing
 * after it can be trusted — and is reported to {@code refusals}.
 */
final class SessionFraming extends ChannelDuplexHandler {

    private final OverlayRefusals refusals;

    SessionFraming(OverlayRefusals refusals) {
        this.refusals = refusals;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf frame)) {
            ctx.fireChannelRead(msg);
            return;
        }
        FrameSession session = OverlayHandshake.session(ctx.channel());
        FrameSession.Opened opened;
        try {
            if (session == null) {
                // The handshake handler lets nothing through before it completes; defensive.
                refusals.refused(ctx.channel().remoteAddress(), "a frame before the handshake");
                ctx.close();
                return;
            }
            opened = session.open(ByteBufUtil.getBytes(frame));
        } finally {
            frame.release();
        }
        if (!opened.accepted()) {
            refusals.refused(ctx.channel().remoteAddress(), switch (opened.refusal()) {
                case TRUNCATED -> "a frame too short to carry a sequence number and a MAC";
                case BAD_MAC -> "a frame whose MAC does not match this connection's session key";
                case OUT_OF_SEQUENCE -> "a replayed or reordered frame";
            });
            ctx.close();
            return;
        }
        ctx.fireChannelRead(Unpooled.wrappedBuffer(opened.body()));
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf frame)) {
            ctx.write(msg, promise);
            return;
        }
        FrameSession session = OverlayHandshake.session(ctx.channel());
        byte[] body;
        try {
            body = ByteBufUtil.getBytes(frame);
        } finally {
            frame.release();
        }
        if (session == null) {
            promise.setFailure(new OverlayException(OverlayException.Reason.CLOSED,
                    "cannot send on an overlay connection before its handshake"));
            return;
        }
        ctx.write(Unpooled.wrappedBuffer(session.seal(body)), promise);
    }
}
