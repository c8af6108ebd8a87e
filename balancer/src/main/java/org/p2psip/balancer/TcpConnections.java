package org.p2psip.balancer;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;

/**
 * Names every open client TCP connection by a number, so a response can
 * find the connection its request came on (RFC 3261 §18.2.2: "the response
 * MUST be sent using the existing connection") from the number written in
 * the balancer's Via — per-connection state, not per-transaction.
 */
@Sharable
public final class TcpConnections extends ChannelInboundHandlerAdapter {

    /** The connection's number, set when it becomes active. */
    public static final AttributeKey<Long> ID = AttributeKey.valueOf("p2psip.lb.connection");

    private final ConcurrentMap<Long, Channel> open = new ConcurrentHashMap<>();
    private final AtomicLong next = new AtomicLong();

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        long id = next.incrementAndGet();
        ctx.channel().attr(ID).set(id);
        open.put(id, ctx.channel());
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Long id = ctx.channel().attr(ID).get();
        if (id != null) {
            open.remove(id, ctx.channel());
        }
        ctx.fireChannelInactive();
    }

    /** The open connection with this number. */
    public Optional<Channel> lookup(long id) {
        Channel c = open.get(id);
        return c != null && c.isActive() ? Optional.of(c) : Optional.empty();
    }

    public int size() {
        return open.size();
    }
}
