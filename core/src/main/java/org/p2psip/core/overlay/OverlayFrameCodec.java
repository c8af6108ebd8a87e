package org.p2psip.core.overlay;

import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Authenticated frame bytes to {@link OverlayFrame} and back. A frame with
 * another magic byte or layout version, an unknown kind, or a short header
 * is dropped (and logged at debug): after the MAC check it can only come
 * from a node of another release, which must not be misread.
 */
public final class OverlayFrameCodec extends MessageToMessageCodec<ByteBuf, OverlayFrame> {

    private static final Logger LOG = LoggerFactory.getLogger(OverlayFrameCodec.class);

    @Override
    protected void encode(ChannelHandlerContext ctx, OverlayFrame frame, List<Object> out) {
        ByteBuf buf = ctx.alloc().buffer(OverlayFrame.HEADER_BYTES + frame.payload().length);
        buf.writeByte(OverlayFrame.MAGIC)
                .writeByte(OverlayFrame.VERSION)
                .writeByte(frame.kind().ordinal())
                .writeShort(frame.type())
                .writeLong(frame.requestId())
                .writeBytes(frame.payload());
        out.add(buf);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf buf, List<Object> out) {
        if (buf.readableBytes() < OverlayFrame.HEADER_BYTES) {
            LOG.debug("dropping a {}-byte frame shorter than the header", buf.readableBytes());
            return;
        }
        byte magic = buf.readByte();
        byte version = buf.readByte();
        if (magic != OverlayFrame.MAGIC || version != OverlayFrame.VERSION) {
            LOG.debug("dropping a frame of magic {} version {}", magic, version);
            return;
        }
        int kind = buf.readUnsignedByte();
        if (kind >= OverlayFrame.Kind.values().length) {
            LOG.debug("dropping a frame of unknown kind {}", kind);
            return;
        }
        int type = buf.readUnsignedShort();
        long requestId = buf.readLong();
        byte[] payload = new byte[buf.readableBytes()];
        buf.readBytes(payload);
        out.add(new OverlayFrame(OverlayFrame.Kind.ofCode(kind), type, requestId, payload));
    }
}
