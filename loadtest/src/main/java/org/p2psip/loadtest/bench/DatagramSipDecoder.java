package org.p2psip.loadtest.bench;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.DatagramPacket;
import io.netty.handler.codec.MessageToMessageDecoder;

/**
 * Turns each UDP datagram into an {@link Inbound}: over UDP one datagram
 * carries exactly one message (RFC 3261 §18.3). Keep-alives (a bare CRLF,
 * RFC 5626 §4.4.1) and datagrams that do not parse are dropped and counted.
 */
public final class DatagramSipDecoder extends MessageToMessageDecoder<DatagramPacket> {

    private final LongAdder dropped;

    public DatagramSipDecoder(LongAdder dropped) {
        this.dropped = dropped;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, DatagramPacket packet, List<Object> out) {
        ByteBuf content = packet.content();
        if (content.readableBytes() <= 4) {
            return;
        }
        byte[] bytes = ByteBufUtil.getBytes(content);
        try {
            out.add(new Inbound(SipMessage.parse(bytes), packet.sender()));
        } catch (IllegalArgumentException e) {
            dropped.increment();
        }
    }
}
