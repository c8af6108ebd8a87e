package org.p2psip.loadtest.bench;

import java.net.InetSocketAddress;
import java.util.List;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.DatagramPacket;
import io.netty.handler.codec.MessageToMessageEncoder;

/** Writes each {@link Outgoing} as one datagram to its destination, or to the default one when it names none. */
public final class DatagramSipEncoder extends MessageToMessageEncoder<Outgoing> {

    private final InetSocketAddress defaultDestination;

    public DatagramSipEncoder(InetSocketAddress defaultDestination) {
        this.defaultDestination = defaultDestination;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Outgoing msg, List<Object> out) {
        InetSocketAddress to = msg.destination() != null ? msg.destination() : defaultDestination;
        out.add(new DatagramPacket(Unpooled.wrappedBuffer(msg.bytes()), to));
    }
}
