package org.p2psip.core.overlay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

class OverlayFrameCodecTest {

    @Test
    void frameRoundTripsThroughTheHeaderLayout() {
        EmbeddedChannel ch = new EmbeddedChannel(new OverlayFrameCodec());
        OverlayFrame frame = new OverlayFrame(OverlayFrame.Kind.RESPONSE, 0xBEEF, Long.MAX_VALUE - 3, new byte[] {1, 2, 3});
        ch.writeOutbound(frame);
        ByteBuf wire = ch.readOutbound();
        assertEquals(OverlayFrame.HEADER_BYTES + 3, wire.readableBytes());
        assertEquals(OverlayFrame.MAGIC, wire.getByte(0));
        assertEquals(OverlayFrame.VERSION, wire.getByte(1));
        ch.writeInbound(wire);
        OverlayFrame back = ch.readInbound();
        assertEquals(frame.kind(), back.kind());
        assertEquals(frame.type(), back.type());
        assertEquals(frame.requestId(), back.requestId());
        assertArrayEquals(frame.payload(), back.payload());
    }

    @Test
    void otherVersionsUnknownKindsAndShortHeadersAreDropped() {
        EmbeddedChannel ch = new EmbeddedChannel(new OverlayFrameCodec());
        byte[] header = new byte[OverlayFrame.HEADER_BYTES];
        header[0] = OverlayFrame.MAGIC;
        header[1] = OverlayFrame.VERSION + 1;
        ch.writeInbound(Unpooled.wrappedBuffer(header.clone()));
        header[1] = OverlayFrame.VERSION;
        header[2] = 9;
        ch.writeInbound(Unpooled.wrappedBuffer(header.clone()));
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {OverlayFrame.MAGIC, OverlayFrame.VERSION}));
        assertNull(ch.readInbound());
    }
}
