package org.p2psip.balancer;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.p2psip.core.guard.SourceGuard;

import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;

/**
 * Decides on accept whether a client's TCP or TLS connection may stay:
 * it is closed at once, before a TLS handshake costs anything, when its
 * source is serving a ban or exceeds its rate (the connection attempt is
 * taken from the source's {@link SourceGuard} bucket like a message), when
 * {@link ConnectionLimits#maxConnections()} are open, or when its address
 * already has {@link ConnectionLimits#maxConnectionsPerSource()} open. The
 * per-source cap keeps one host from using up the file descriptors every
 * other client needs; the total cap keeps the process below its own limit.
 *
 * <p>First in every accepted connection's pipeline; a refused connection
 * goes no further, not even its close.
 */
@Sharable
public final class ConnectionGate extends ChannelInboundHandlerAdapter {

    private static final AttributeKey<Boolean> ADMITTED = AttributeKey.valueOf("p2psip.lb.admitted");

    private final ConnectionLimits limits;
    private final SourceGuard guard;
    private final BalancerCounters counters;
    private final BadInputReporter bad;
    private final AtomicInteger open = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, AtomicInteger> bySource = new ConcurrentHashMap<>();

    public ConnectionGate(ConnectionLimits limits, SourceGuard guard, BalancerCounters counters,
                          BadInputReporter bad) {
        this.limits = limits;
        this.guard = guard;
        this.counters = counters;
        this.bad = bad;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        InetSocketAddress remote = (InetSocketAddress) ctx.channel().remoteAddress();
        String refusal = admit(remote.getAddress());
        if (refusal != null) {
            counters.countConnectionRefused();
            bad.report(remote, refusal);
            ctx.close();
            return;
        }
        ctx.channel().attr(ADMITTED).set(Boolean.TRUE);
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (ctx.channel().attr(ADMITTED).getAndSet(null) == null) {
            return;
        }
        release(((InetSocketAddress) ctx.channel().remoteAddress()).getAddress());
        ctx.fireChannelInactive();
    }

    /** Connections admitted and still open. */
    public int open() {
        return open.get();
    }

    /** Connections admitted and still open from {@code source}. */
    public int open(InetAddress source) {
        AtomicInteger n = bySource.get(source);
        return n == null ? 0 : n.get();
    }

    /** Takes a place for a connection from {@code source}, or says why there is none. */
    private String admit(InetAddress source) {
        if (!guard.admit(source, System.nanoTime()).admitted()) {
            counters.countSourceDropped();
            return "connection refused: the source is over its rate or banned";
        }
        if (open.incrementAndGet() > limits.maxConnections()) {
            open.decrementAndGet();
            return "connection refused: " + limits.maxConnections() + " connections are open";
        }
        boolean[] placed = {false};
        bySource.compute(source, (a, n) -> {
            AtomicInteger count = n == null ? new AtomicInteger() : n;
            if (count.get() < limits.maxConnectionsPerSource()) {
                count.incrementAndGet();
                placed[0] = true;
            }
            return count.get() == 0 ? null : count;
        });
        if (!placed[0]) {
            open.decrementAndGet();
            return "connection refused: the source has " + limits.maxConnectionsPerSource() + " connections open";
        }
        return null;
    }

    private void release(InetAddress source) {
        open.decrementAndGet();
        bySource.computeIfPresent(source, (a, n) -> n.decrementAndGet() <= 0 ? null : n);
    }
}
