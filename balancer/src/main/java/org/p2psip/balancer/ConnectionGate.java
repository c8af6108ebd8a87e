package org.p2psip.balancer;

import org.p2psip.sip.wire.ConnectionLimits;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.p2psip.core.guard.PlaceCounts;
import org.p2psip.core.guard.SourceGuard;
import org.p2psip.core.guard.SourceNetwork;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;

/**
 * Decides on accept whether a client's TCP or TLS connection may stay:
 * it is closed at once, before a TLS handshake costs anything, when its
 * source is serving a ban or exceeds its rate (the connection attempt is
 * taken from the source's {@link SourceGuard} bucket like a message), when
 * its address already has {@link ConnectionLimits#maxConnectionsPerSource()}
 * open, or when {@link ConnectionLimits#maxConnections()} in all or
 * {@link ConnectionLimits#maxConnectionsPerNetwork()} from its network (an
 * IPv4 /24, an IPv6 /64) are open and none of them can make room. The caps
 * keep one host, or one host with many addresses, from using up the file
 * descriptors every other client needs, and the process below its own
 * limit.
 *
 * <p>Room is made by closing the oldest connection that has not yet sent
 * a whole message ({@link #spoke}): holding places with connections that
 * say nothing is the cheapest way to lock everyone out, and such a
 * connection costs its owner nothing to open again, while a phone that
 * registered keeps its place.
 *
 * <p>First in every accepted connection's pipeline; a refused connection
 * goes no further, not even its close.
 */
@Sharable
public final class ConnectionGate extends ChannelInboundHandlerAdapter {

    private static final AttributeKey<Admitted> ADMITTED = AttributeKey.valueOf("p2psip.lb.admitted");

    /** What an admitted connection holds: its place in the counts, and in the order of the silent ones. */
    private record Admitted(InetAddress source, String network, long sequence) {
    }

    private final ConnectionLimits limits;
    private final SourceGuard guard;
    private final BalancerCounters counters;
    private final BadInputReporter bad;
    private final AtomicInteger open = new AtomicInteger();
    private final PlaceCounts<InetAddress> bySource = new PlaceCounts<>();
    private final PlaceCounts<String> byNetwork = new PlaceCounts<>();
    /** Admitted connections that have not sent a whole message yet, oldest first. */
    private final ConcurrentSkipListMap<Long, Channel> silent = new ConcurrentSkipListMap<>();
    private final AtomicLong sequence = new AtomicLong();

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
        String refusal = admit(ctx.channel(), remote.getAddress());
        if (refusal != null) {
            counters.countConnectionRefused();
            bad.report(remote, refusal);
            ctx.close();
            return;
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (!release(ctx.channel())) {
            return;
        }
        ctx.fireChannelInactive();
    }

    /** {@code channel} delivered its first whole message: it keeps its place. */
    public void spoke(Channel channel) {
        Admitted a = channel.attr(ADMITTED).get();
        if (a != null) {
            silent.remove(a.sequence(), channel);
        }
    }

    /** Connections admitted and still open. */
    public int open() {
        return open.get();
    }

    /** Connections admitted and still open from {@code source}. */
    public int open(InetAddress source) {
        return bySource.held(source);
    }

    /** Takes a place for {@code channel} from {@code source}, making room if it must; or says why there is none. */
    private String admit(Channel channel, InetAddress source) {
        if (!guard.admit(source, System.nanoTime()).admitted()) {
            counters.countSourceDropped();
            return "connection refused: the source is over its rate or banned";
        }
        if (!bySource.take(source, limits.maxConnectionsPerSource())) {
            return "connection refused: the source has " + limits.maxConnectionsPerSource() + " connections open";
        }
        String network = SourceNetwork.of(source);
        if (!byNetwork.take(network, limits.maxConnectionsPerNetwork())
                && !(makeRoom(network) && byNetwork.take(network, limits.maxConnectionsPerNetwork()))) {
            bySource.give(source);
            return "connection refused: its network has " + limits.maxConnectionsPerNetwork()
                    + " connections open, each of which has spoken";
        }
        if (!takePlace() && !(makeRoom(null) && takePlace())) {
            bySource.give(source);
            byNetwork.give(network);
            return "connection refused: " + limits.maxConnections() + " connections are open, each of which "
                    + "has spoken";
        }
        Admitted a = new Admitted(source, network, sequence.incrementAndGet());
        channel.attr(ADMITTED).set(a);
        silent.put(a.sequence(), channel);
        return null;
    }

    private boolean takePlace() {
        if (open.incrementAndGet() > limits.maxConnections()) {
            open.decrementAndGet();
            return false;
        }
        return true;
    }

    /**
     * Closes the oldest silent connection, from {@code network} when it is
     * not null, and gives its places back at once (its own close will find
     * nothing left to give back). False when there is none.
     */
    private boolean makeRoom(String network) {
        for (Iterator<Map.Entry<Long, Channel>> it = silent.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, Channel> e = it.next();
            Channel oldest = e.getValue();
            Admitted a = oldest.attr(ADMITTED).get();
            if (a == null || network != null && !network.equals(a.network())) {
                continue;
            }
            if (release(oldest)) {
                counters.countMadeRoom();
                bad.report((InetSocketAddress) oldest.remoteAddress(),
                        "connection closed to make room: it had sent no whole message");
                oldest.close();
                return true;
            }
        }
        return false;
    }

    /** Gives back what {@link #admit} took for {@code channel}; false when that was done already. */
    private boolean release(Channel channel) {
        Admitted a = channel.attr(ADMITTED).getAndSet(null);
        if (a == null) {
            return false;
        }
        silent.remove(a.sequence(), channel);
        open.decrementAndGet();
        bySource.give(a.source());
        byNetwork.give(a.network());
        return true;
    }
}
