package org.p2psip.servlet.lb;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.p2psip.core.net.HostPort;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The stateless SIP load balancer: UDP and TCP on one port, requests
 * spread over the front nodes by a {@link BalancingPolicy}, responses
 * routed back by the balancer's own Via entry (RFC 3261 §16.11), dead nodes
 * found by OPTIONS probes ({@link HealthChecker}).
 *
 * <p>Pipelines, one job per handler:
 * <pre>
 * UDP: SipDatagramDecoder → SipParserHandler → HealthChecker → SipRouter
 * TCP: TcpConnections → SipStreamFramer → SipParserHandler → SipRouter
 * </pre>
 * Requests reach the nodes over UDP from the balancer's own port, whatever
 * the client used, so node responses come back to the one UDP socket; a TCP
 * client gets its responses on its own connection.
 */
public final class SipBalancer implements AutoCloseable {

    private static final int BIND_ATTEMPTS = 20;

    private final HostPort address;
    private final NodeSet nodes;
    private final BalancerCounters counters;
    private final TcpConnections connections;
    private final EventLoopGroup udpGroup;
    private final EventLoopGroup acceptGroup;
    private final EventLoopGroup tcpGroup;
    private final Channel udp;
    private final Channel tcp;
    private final AtomicBoolean closed = new AtomicBoolean();

    private SipBalancer(HostPort address, NodeSet nodes, BalancerCounters counters, TcpConnections connections,
                        EventLoopGroup udpGroup, EventLoopGroup acceptGroup, EventLoopGroup tcpGroup, Channel udp,
                        Channel tcp) {
        this.address = address;
        this.nodes = nodes;
        this.counters = counters;
        this.connections = connections;
        this.udpGroup = udpGroup;
        this.acceptGroup = acceptGroup;
        this.tcpGroup = tcpGroup;
        this.udp = udp;
        this.tcp = tcp;
    }

    /**
     * Binds UDP and TCP and starts probing the nodes.
     *
     * @throws BalancerStartException with a one-line reason: busy port, unknown host, a node at the balancer's own address
     */
    public static SipBalancer start(BalancerSettings settings) throws BalancerStartException {
        InetAddress bindAddress;
        try {
            bindAddress = InetAddress.getByName(settings.sip().host());
        } catch (UnknownHostException e) {
            throw new BalancerStartException("unknown host '" + settings.sip().host() + "'");
        }
        NodeSet nodes;
        try {
            nodes = new NodeSet(settings.nodes());
        } catch (IllegalArgumentException e) {
            throw new BalancerStartException(e.getMessage());
        }
        int port = settings.sip().port();
        for (NodeSet.Node n : nodes.all()) {
            InetAddress a = n.socket().getAddress();
            if (port != 0 && n.socket().getPort() == port
                    && (a.equals(bindAddress) || bindAddress.isAnyLocalAddress() || a.isAnyLocalAddress())) {
                throw new BalancerStartException("node " + n.address()
                        + " is the balancer's own address; it would forward requests to itself");
            }
        }

        BalancerCounters counters = new BalancerCounters();
        TcpConnections connections = new TcpConnections();
        EventLoopGroup udpGroup = new NioEventLoopGroup(1, new DefaultThreadFactory("p2psip-lb-udp", true));
        EventLoopGroup acceptGroup = new NioEventLoopGroup(1, new DefaultThreadFactory("p2psip-lb-accept", true));
        EventLoopGroup tcpGroup = new NioEventLoopGroup(
                Math.max(1, Runtime.getRuntime().availableProcessors()), new DefaultThreadFactory("p2psip-lb-tcp", true));
        Channel[] bound = null;
        try {
            bound = bind(settings, bindAddress, port, nodes, counters, connections, udpGroup, acceptGroup, tcpGroup);
        } finally {
            if (bound == null) {
                shutdown(udpGroup, acceptGroup, tcpGroup);
            }
        }
        int boundPort = ((InetSocketAddress) bound[0].localAddress()).getPort();
        HostPort actual = new HostPort(bindAddress.getHostAddress(), boundPort);
        return new SipBalancer(actual, nodes, counters, connections, udpGroup, acceptGroup, tcpGroup, bound[0], bound[1]);
    }

    private static Channel[] bind(BalancerSettings settings, InetAddress bindAddress, int port, NodeSet nodes,
                                  BalancerCounters counters, TcpConnections connections, EventLoopGroup udpGroup,
                                  EventLoopGroup acceptGroup, EventLoopGroup tcpGroup) throws BalancerStartException {
        for (int attempt = 0; attempt < (port == 0 ? BIND_ATTEMPTS : 1); attempt++) {
            UdpEgress egress = new UdpEgress(connections, counters);
            // The router needs the balancer's identity, which needs the port, which a port-0 bind only
            // reveals once TCP is bound: accepted connections pick the router up from here.
            AtomicReference<SipRouter> routerOnceBound = new AtomicReference<>();
            SipParserHandler parser = new SipParserHandler(counters);
            ChannelFuture tcpBind = new ServerBootstrap().group(acceptGroup, tcpGroup)
                    .channel(NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            SipRouter router = routerOnceBound.get();
                            if (router == null) {
                                ch.close();
                                return;
                            }
                            ch.pipeline().addLast("connections", connections)
                                    .addLast("frame", new SipStreamFramer(settings.maxMessageBytes(), counters))
                                    .addLast("parse", parser)
                                    .addLast("route", router);
                        }
                    }).bind(new InetSocketAddress(bindAddress, port)).awaitUninterruptibly();
            if (!tcpBind.isSuccess()) {
                throw new BalancerStartException("TCP port " + bindAddress.getHostAddress() + ":" + port
                        + " is already in use (" + oneLine(tcpBind.cause()) + ")");
            }
            Channel tcp = tcpBind.channel();
            int actualPort = ((InetSocketAddress) tcp.localAddress()).getPort();
            BalancerIdentity self = BalancerIdentity.of(advertised(bindAddress, actualPort));
            SipRouter router = new SipRouter(self, new NodeSelector(settings.policy(), nodes), egress, counters,
                    settings.retryAfterSeconds());
            ChannelFuture udpBind = new Bootstrap().group(udpGroup).channel(NioDatagramChannel.class)
                    // A datagram is one message: read it whole, not the default 2 KB of it.
                    .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(65_536))
                    .option(ChannelOption.SO_RCVBUF, 4 << 20)
                    .option(ChannelOption.SO_SNDBUF, 4 << 20)
                    .handler(new ChannelInitializer<DatagramChannel>() {
                        @Override
                        protected void initChannel(DatagramChannel ch) {
                            ch.pipeline().addLast("frame", new SipDatagramDecoder())
                                    .addLast("parse", parser)
                                    .addLast("health", new HealthChecker(nodes, self, settings.probeInterval(),
                                            settings.probeFailures()))
                                    .addLast("route", router);
                        }
                    }).bind(new InetSocketAddress(bindAddress, actualPort)).awaitUninterruptibly();
            if (!udpBind.isSuccess()) {
                tcp.close().awaitUninterruptibly();
                if (port == 0) {
                    continue;
                }
                throw new BalancerStartException("UDP port " + bindAddress.getHostAddress() + ":" + port
                        + " is already in use (" + oneLine(udpBind.cause()) + ")");
            }
            Channel udp = udpBind.channel();
            egress.udp = udp;
            routerOnceBound.set(router);
            return new Channel[] {udp, tcp};
        }
        throw new BalancerStartException("no port free on both UDP and TCP at " + bindAddress.getHostAddress());
    }

    /** Where the balancer listens for SIP on UDP and TCP. */
    public HostPort address() {
        return address;
    }

    public BalancerCounters counters() {
        return counters;
    }

    public NodeSet nodes() {
        return nodes;
    }

    /** Open client TCP connections. */
    public int tcpConnections() {
        return connections.size();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        udp.close().awaitUninterruptibly();
        tcp.close().awaitUninterruptibly();
        shutdown(udpGroup, acceptGroup, tcpGroup);
    }

    private static void shutdown(EventLoopGroup... groups) {
        for (EventLoopGroup g : groups) {
            g.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        }
        for (EventLoopGroup g : groups) {
            g.terminationFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    private static HostPort advertised(InetAddress bound, int port) throws BalancerStartException {
        if (!bound.isAnyLocalAddress()) {
            return new HostPort(bound.getHostAddress(), port);
        }
        try {
            return new HostPort(InetAddress.getLocalHost().getHostAddress(), port);
        } catch (UnknownHostException e) {
            throw new BalancerStartException("bound to a wildcard address and cannot find this host's own: "
                    + e.getMessage());
        }
    }

    private static String oneLine(Throwable t) {
        String m = t == null || t.getMessage() == null ? String.valueOf(t) : t.getMessage();
        return m.replace('\n', ' ').replace('\r', ' ');
    }

    /** Sends through the balancer's UDP socket and the client's TCP connections. */
    private static final class UdpEgress implements Egress {

        private final TcpConnections connections;
        private final BalancerCounters counters;
        private volatile Channel udp;

        UdpEgress(TcpConnections connections, BalancerCounters counters) {
            this.connections = connections;
            this.counters = counters;
        }

        @Override
        public void toNode(InetSocketAddress node, ByteBuf message) {
            udp.writeAndFlush(new DatagramPacket(message, node), udp.voidPromise());
        }

        @Override
        public void toClient(ReturnAddress client, ByteBuf message) {
            if (client.transport() == Transport.UDP) {
                udp.writeAndFlush(new DatagramPacket(message, client.address()), udp.voidPromise());
                return;
            }
            connections.lookup(client.connection()).ifPresentOrElse(
                    c -> c.writeAndFlush(message, c.voidPromise()),
                    () -> {
                        // RFC 3261 §18.2.2 would open a new connection to sent-by; a balancer keeps it simple.
                        message.release();
                        counters.countUndeliverable();
                    });
        }
    }

    /** For tests: the nodes currently up. */
    public List<HostPort> liveNodes() {
        return nodes.live().stream().map(NodeSet.Node::address).toList();
    }
}
