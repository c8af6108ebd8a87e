package org.p2psip.servlet.lb;

import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.DatagramPacket;
import io.netty.handler.codec.MessageToMessageDecoder;

/**
 * UDP framing: one datagram is one message (RFC 3261 §18.3). Datagrams of
 * nothing but CR and LF are keep-alives (RFC 5626 §3.5.1 style) and vanish
 * silently; everything else becomes a {@link SipFrame} for the parser.
 */
public final class SipDatagramDecoder extends MessageToMessageDecoder<DatagramPacket> {

    @Override
    protected void decode(ChannelHandlerContext ctx, DatagramPacket packet, List<Object> out) {
        ByteBuf content = packet.content();
        int from = content.readerIndex();
        int to = content.writerIndex();
        int i = from;
        while (i < to && (content.getByte(i) == '\r' || content.getByte(i) == '\n')) {
            i++;
        }
        if (i == to) {
            return;
        }
        out.add(new SipFrame(ByteBufUtil.getBytes(content), packet.sender(), Transport.UDP, 0));
    }
}
