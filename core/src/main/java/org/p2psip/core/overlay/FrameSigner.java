package org.p2psip.core.overlay;

import java.util.List;

import javax.crypto.Mac;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;

/**
 * Outbound: appends HMAC-SHA256(secret, frame) to every frame, so the
 * receiving {@link FrameVerifier} can drop anything not sent by a holder of
 * the cluster secret.
 */
public final class FrameSigner extends MessageToMessageEncoder<ByteBuf> {

    private final Mac mac;

    public FrameSigner(OverlaySecret secret) {
        this.mac = secret.newMac();
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
        byte[] body = new byte[frame.readableBytes()];
        frame.getBytes(frame.readerIndex(), body);
        byte[] tag = mac.doFinal(body);
        ByteBuf signed = ctx.alloc().buffer(body.length + tag.length);
        signed.writeBytes(body).writeBytes(tag);
        out.add(signed);
    }
}
