package org.p2psip.balancer;

import org.p2psip.sip.wire.SipFrame;

import java.util.concurrent.atomic.AtomicLong;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;
import org.p2psip.core.guard.CredentialFreeBudget;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds the requests a registrar can only challenge (REGISTER, SUBSCRIBE,
 * PUBLISH, MESSAGE without credentials) to one budget for all clients
 * together, before a datagram is parsed or forwarded: a flood from many
 * addresses, each under the per-source limit, costs the balancer a header
 * scan per message and reaches the nodes no faster than they would answer
 * it. Everything else passes untouched. Sits right after the
 * {@link SourceGuardHandler} on the clients' side, for datagrams and for
 * the messages framed out of TCP and TLS connections, which share the one
 * budget; the nodes' answers never meet it. A message over the budget is
 * dropped unanswered, as on UDP: a flood over many connections must cost
 * no more than one over datagrams. Drops are counted in {@link BalancerCounters#overBudget};
 * the first, and then one line a minute, is logged with the count.
 */
@Sharable
public final class CredentialFreeBudgetHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(CredentialFreeBudgetHandler.class);
    private static final long LOG_INTERVAL_NANOS = 60_000_000_000L;

    private final CredentialFreeBudget budget;
    private final BalancerCounters counters;
    private final AtomicLong loggedAt = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong loggedDrops = new AtomicLong();

    public CredentialFreeBudgetHandler(CredentialFreeBudget budget, BalancerCounters counters) {
        this.budget = budget;
        this.counters = counters;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (governed(msg) && !budget.admit(System.nanoTime())) {
            ReferenceCountUtil.release(msg);
            counters.countOverBudget();
            report(System.nanoTime());
            return;
        }
        ctx.fireChannelRead(msg);
    }

    private static boolean governed(Object msg) {
        if (msg instanceof DatagramPacket p) {
            ByteBuf content = p.content();
            return CredentialFreeBudget.governs(content.nioBuffer(content.readerIndex(), content.readableBytes()));
        }
        return msg instanceof SipFrame f && CredentialFreeBudget.governs(f.bytes(), f.bytes().length);
    }

    /** Requests dropped over the budget so far. */
    public long dropped() {
        return budget.dropped();
    }

    private void report(long now) {
        long last = loggedAt.get();
        if ((last == Long.MIN_VALUE || now - last >= LOG_INTERVAL_NANOS) && loggedAt.compareAndSet(last, now)) {
            long total = budget.dropped();
            LOG.warn("dropped {} REGISTER/SUBSCRIBE/PUBLISH/MESSAGE requests without credentials{}: more arrive, "
                    + "from all clients together, than the balancer's --unauthenticated-rate allows",
                    total - loggedDrops.getAndSet(total), last == Long.MIN_VALUE ? "" : " in the last minute");
        }
    }
}
