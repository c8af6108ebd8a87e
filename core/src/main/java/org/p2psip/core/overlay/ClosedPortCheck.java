package org.p2psip.core.overlay;

import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.util.ReferenceCountUtil;

/**
 * Asks a UDP peer's host whether anything still listens on the peer's
 * port: one byte from a throwaway socket connected to it. A host whose
 * process died answers ICMP port unreachable, which the kernel reports
 * only on a connected socket; a live peer drops a datagram too short to be
 * a fragment, unanswered and uncounted; a host that is gone says nothing.
 * So a refusal is proof of death, and silence proves nothing: the caller
 * falls back on its timeouts.
 *
 * <p>A peer is checked at most once per {@link #MIN_GAP_MILLIS}, however
 * many of its requests wait.
 */
final class ClosedPortCheck {

    /** How long a check's socket waits for the ICMP answer: a loaded host's round trip and then some. */
    static final long ANSWER_WAIT_MILLIS = 500;
    /** The least time between two checks of one peer. */
    static final long MIN_GAP_MILLIS = 250;
    /** Peers whose last check is remembered; past this the memory starts over. */
    private static final int MAX_REMEMBERED = 4096;

    private final EventLoopGroup group;
    private final InetSocketAddress bindTo;
    private final Consumer<InetSocketAddress> refused;
    private final Map<InetSocketAddress, Long> lastCheckNanos = new ConcurrentHashMap<>();

    /**
     * @param bindTo  the local address checks leave from (port 0)
     * @param refused called, on a thread of {@code group}, with each peer whose port turned out closed
     */
    ClosedPortCheck(EventLoopGroup group, InetSocketAddress bindTo, Consumer<InetSocketAddress> refused) {
        this.group = group;
        this.bindTo = bindTo;
        this.refused = refused;
    }

    /** Checks {@code peer}'s port unless it was checked within the last {@value #MIN_GAP_MILLIS} ms. */
    void check(InetSocketAddress peer) {
        long now = System.nanoTime();
        if (lastCheckNanos.size() >= MAX_REMEMBERED) {
            lastCheckNanos.clear();
        }
        boolean[] due = {false};
        lastCheckNanos.compute(peer, (p, last) -> {
            if (last != null && now - last < TimeUnit.MILLISECONDS.toNanos(MIN_GAP_MILLIS)) {
                return last;
            }
            due[0] = true;
            return now;
        });
        if (!due[0] || group.isShuttingDown()) {
            return;
        }
        ChannelFuture connect = new Bootstrap().group(group).channel(NioDatagramChannel.class)
                .handler(new RefusalReader(peer))
                .connect(peer, bindTo);
        connect.addListener(f -> {
            Channel ch = connect.channel();
            if (!f.isSuccess()) {
                ch.close();
                return;
            }
            ch.writeAndFlush(Unpooled.wrappedBuffer(new byte[1])).addListener(w -> {
                // The kernel may report the ICMP on a send rather than on a receive.
                if (w.cause() instanceof PortUnreachableException) {
                    refused.accept(peer);
                    ch.close();
                }
            });
            ch.eventLoop().schedule(() -> {
                ch.close();
            }, ANSWER_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        });
    }

    /** A check socket's reader: the refusal is the only thing it listens for. */
    private final class RefusalReader extends ChannelInboundHandlerAdapter {

        private final InetSocketAddress peer;

        RefusalReader(InetSocketAddress peer) {
            this.peer = peer;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof PortUnreachableException) {
                refused.accept(peer);
            }
            ctx.close();
        }
    }
}
