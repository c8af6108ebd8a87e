package org.p2psip.balancer;

import org.p2psip.sip.wire.SipMessage;

import java.util.concurrent.atomic.AtomicIntegerArray;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Notes each response a node sends the balancer's node-side socket, for
 * {@link HealthChecker}, which reads them on its own event loop once per
 * probe round. A node's answers to the requests the balancer forwarded
 * come back there (their Via names that socket), not to the socket the
 * checker sits on; they are the best sign of life a busy node gives, and
 * without them a node answering a thousand requests a second whose
 * OPTIONS waits behind them would be taken out as silent, and its load
 * moved onto peers as busy as it was.
 *
 * <p>Sits in the node-side pipeline after the parser and passes
 * everything on; the flags are atomic, so any thread may set them.
 */
@Sharable
public final class NodeResponses extends ChannelInboundHandlerAdapter {

    private final NodeSet nodes;
    private final AtomicIntegerArray heard;

    public NodeResponses(NodeSet nodes) {
        this.nodes = nodes;
        this.heard = new AtomicIntegerArray(nodes.all().size());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof SipMessage m && !m.request()) {
            nodes.at(m.frame().sender()).ifPresent(n -> heard.set(n.index(), 1));
        }
        ctx.fireChannelRead(msg);
    }

    /** Node {@code index} sent a response (any thread). */
    void heard(int index) {
        heard.set(index, 1);
    }

    /** Whether node {@code index} sent a response since the last time this was asked. */
    boolean takeHeard(int index) {
        return heard.getAndSet(index, 0) == 1;
    }
}
