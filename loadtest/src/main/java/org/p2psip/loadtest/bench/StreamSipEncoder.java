package org.p2psip.loadtest.bench;

import java.util.List;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;

/**
 * Writes each {@link Outgoing} onto the connection. Over a stream every
 * message of a lane goes to the peer at the other end, whatever next hop
 * it names: the lane has one connection, to its target.
 */
public final class StreamSipEncoder extends MessageToMessageEncoder<Outgoing> {

    @Override
    protected void encode(ChannelHandlerContext ctx, Outgoing msg, List<Object> out) {
        out.add(Unpooled.wrappedBuffer(msg.bytes()));
    }
}
