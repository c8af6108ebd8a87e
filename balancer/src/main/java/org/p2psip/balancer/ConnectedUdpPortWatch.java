package org.p2psip.balancer;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.util.function.IntConsumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.util.ReferenceCountUtil;

/**
 * Watches each node's port from a UDP socket of its own, connected to the
 * node, by sending it a CRLF keep-alive every ping.
 *
 * <p>The kernel reports a host's ICMP port unreachable only on a connected
 * UDP socket (the next send or receive fails with {@code ECONNREFUSED});
 * on the balancer's one shared socket it is lost. So a SIGKILLed node is
 * known dead at the first ping after its death, not after
 * {@code --probe-failures} silent intervals during which every request sent
 * to it is lost and the clients' retransmissions pile up for the nodes that
 * take over. A host that is gone, or a firewall that drops, sends no ICMP:
 * silence still counts as before.
 *
 * <p>The ping is a bare CRLF, the keep-alive SIP stacks ignore before a
 * start line (RFC 3261 §7.5, RFC 5626 §4.4.1): the health probe itself stays
 * on the balancer's socket, whose address is how a node knows to tell the
 * balancer its key ranges. What a node sends back here is dropped.
 */
public final class ConnectedUdpPortWatch implements ClosedPortWatch {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectedUdpPortWatch.class);
    private static final byte[] CRLF = {'\r', '\n'};

    private final InetAddress bindAddress;
    private Channel[] sockets = new Channel[0];
    private IntConsumer refused = index -> { };

    /** @param bindAddress the balancer's own address, which the pings leave from */
    public ConnectedUdpPortWatch(InetAddress bindAddress) {
        this.bindAddress = bindAddress;
    }

    @Override
    public void open(EventLoop loop, NodeSet nodes, IntConsumer refused) {
        this.refused = refused;
        sockets = new Channel[nodes.all().size()];
        for (NodeSet.Node node : nodes.all()) {
            int index = node.index();
            sockets[index] = new Bootstrap().group(loop).channel(NioDatagramChannel.class)
                    .handler(new RefusalReader(index, refused))
                    .connect(node.socket(), new InetSocketAddress(bindAddress, 0))
                    .addListener(f -> {
                        if (!f.isSuccess()) {
                            LOG.warn("cannot watch node {}'s port; a dead node is noticed by its silence: {}",
                                    node.address(), f.cause().toString());
                        }
                    }).channel();
        }
    }

    @Override
    public void ping(NodeSet.Node node) {
        Channel socket = node.index() < sockets.length ? sockets[node.index()] : null;
        if (socket == null || !socket.isActive()) {
            return;
        }
        ByteBuf ping = Unpooled.wrappedBuffer(CRLF);
        socket.writeAndFlush(ping).addListener(f -> {
            // The kernel may report an earlier ICMP on this send rather than on a receive.
            if (f.cause() instanceof PortUnreachableException) {
                refused.accept(node.index());
            }
        });
    }

    @Override
    public void close() {
        for (Channel socket : sockets) {
            if (socket != null) {
                socket.close();
            }
        }
    }

    /** One watching socket's reader: a refusal goes to the checker; anything the node sends is dropped. */
    private static final class RefusalReader extends ChannelInboundHandlerAdapter {

        private final int index;
        private final IntConsumer refused;

        RefusalReader(int index, IntConsumer refused) {
            this.index = index;
            this.refused = refused;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof PortUnreachableException) {
                refused.accept(index);
            } else {
                LOG.debug("watching node #{}'s port: {}", index, cause.toString());
            }
        }
    }
}
