package org.p2psip.balancer;

import org.p2psip.sip.wire.SipFrame;

import java.net.InetSocketAddress;

import org.p2psip.core.guard.SourceGuard;
import org.p2psip.core.guard.SourceVerdict;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;

/**
 * Admits each message by its source address through a {@link SourceGuard}
 * (per-source token bucket and ban, like Kamailio's pike): a source over
 * its rate is banned, and what it sends during the ban is dropped without
 * an answer, since answering a flood would amplify it.
 *
 * <p>On UDP it sits first, before a datagram is even copied, and sees
 * {@link DatagramPacket}s; on TCP and TLS it sits after the framer and
 * sees each {@link SipFrame}, and a banned source's connection is closed
 * (its next connection is refused by {@link ConnectionGate} until the ban
 * ends). The nodes are in the guard's trusted set: their responses are
 * never limited.
 */
@Sharable
public final class SourceGuardHandler extends ChannelInboundHandlerAdapter {

    private final SourceGuard guard;
    private final BalancerCounters counters;
    private final BadInputReporter bad;

    public SourceGuardHandler(SourceGuard guard, BalancerCounters counters, BadInputReporter bad) {
        this.guard = guard;
        this.counters = counters;
        this.bad = bad;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        InetSocketAddress source;
        boolean stream;
        if (msg instanceof DatagramPacket p) {
            source = p.sender();
            stream = false;
        } else if (msg instanceof SipFrame f) {
            source = f.sender();
            stream = f.transport().stream();
        } else {
            ctx.fireChannelRead(msg);
            return;
        }
        SourceVerdict verdict = guard.admit(source.getAddress(), System.nanoTime());
        if (verdict.admitted()) {
            ctx.fireChannelRead(msg);
            return;
        }
        ReferenceCountUtil.release(msg);
        counters.countSourceDropped();
        if (verdict == SourceVerdict.BANNED_NOW) {
            bad.report(source, "over " + guard.limits().ratePerSecond() + " messages/s; banned for "
                    + guard.limits().ban().toSeconds() + " s");
        }
        if (stream) {
            ctx.close();
        }
    }
}
