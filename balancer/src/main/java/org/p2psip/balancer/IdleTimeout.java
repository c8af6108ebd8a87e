package org.p2psip.balancer;

import java.util.concurrent.TimeUnit;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;

/**
 * Closes a client connection that has sent nothing for the idle timeout.
 * Only what the client sends counts: a registered phone keeps its flow
 * open with CRLF keep-alives (RFC 5626 §4.4.1) or re-registrations, and a
 * connection that is only written to is one nobody reads from any more.
 */
public final class IdleTimeout extends IdleStateHandler {

    private final BalancerCounters counters;

    public IdleTimeout(long idleNanos, BalancerCounters counters) {
        super(idleNanos, 0, 0, TimeUnit.NANOSECONDS);
        this.counters = counters;
    }

    @Override
    protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent evt) {
        counters.countIdleClosed();
        ctx.close();
    }
}
