package org.p2psip.balancer;

import org.p2psip.sip.wire.ConnectionLimits;
import org.p2psip.sip.wire.Transport;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.p2psip.core.auth.UnansweredChallengeWarnings;
import org.p2psip.core.guard.CredentialFreeBudget;
import org.p2psip.core.guard.SourceGuard;
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
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.LoggerFactory;

/**
 * The stateless SIP load balancer: UDP and TCP on one port, requests
 * spread over the front nodes by a {@link BalancingPolicy}, responses
 * routed back by the balancer's own Via entry (RFC 3261 §16.11), dead and
 * warming nodes found by OPTIONS probes ({@link HealthChecker}), nodes that
 * turn ready brought in gradually ({@link SlowStart}).
 *
 * <p>Pipelines, one job per handler:
 * <pre>
 * UDP, public:    SourceGuardHandler → [CredentialFreeBudgetHandler] → SipDatagramDecoder → SipParserHandler
 *                 → HealthChecker → [EdgeChallengeHandler] → SipRouter
 * UDP, node side: SourceGuardHandler → SipDatagramDecoder → SipParserHandler → SipRouter
 * TCP: ConnectionGate → IdleTimeout → TcpConnections → SipStreamFramer → SourceGuardHandler
 *      → [CredentialFreeBudgetHandler] → SipParserHandler → [EdgeChallengeHandler] → SipRouter
 * TLS: ConnectionGate → IdleTimeout → SslHandler → TcpConnections → SipStreamFramer → SourceGuardHandler
 *      → [CredentialFreeBudgetHandler] → SipParserHandler → [EdgeChallengeHandler] → SipRouter
 * </pre>
 * Requests reach the nodes over UDP, whatever the client used, from a
 * node-side socket of their own (a free port on the balancer's address,
 * each on its own thread), named in the balancer's Via, so the nodes'
 * responses come back there (RFC 3261 §18.2.2) and never wait behind, or
 * overflow with, a flood of clients' requests at the public socket: those
 * responses are what stops clients retransmitting. Health probes still go
 * from the public socket, the address a node tells its key ranges to. A
 * UDP client gets its responses from the public socket it wrote to; a TCP
 * or TLS client on its own connection. The client's Via is left as the client wrote it (TCP, TLS) but
 * for {@code received} and {@code rport}; the balancer's own Via, on top,
 * says UDP, the transport it forwards on. URIs, {@code sips:} included,
 * pass through untouched.
 *
 * <p>Abuse and overload: every source address is rate-limited and banned
 * when it floods ({@link SourceGuardHandler}, {@link ConnectionGate}),
 * except the nodes and the configured trusted sources; connections are
 * capped, idle ones closed, and a message must arrive within a deadline
 * ({@link ConnectionLimits}); oversized messages get 513; nodes that shed
 * load are passed over for new requests ({@link NodeLoad}).
 */
public final class SipBalancer implements AutoCloseable {

    private static final int BIND_ATTEMPTS = 20;
    /** Above the largest UDP payload (65,535 bytes), so no datagram is ever cut. */
    static final int UDP_RECEIVE_BUFFER = 65_536;

    private final HostPort address;
    private final NodeSet nodes;
    private final BalancerCounters counters;
    private final TcpConnections connections;
    private final EventLoopGroup udpGroup;
    private final EventLoopGroup nodeGroup;
    private final EventLoopGroup acceptGroup;
    private final EventLoopGroup tcpGroup;
    private final Channel udp;
    private final Channel tcp;
    private final Channel tls;
    private final Channel nodeSide;
    private final Edge edge;
    private final AtomicBoolean closed = new AtomicBoolean();

    /** What a bound balancer routes with; stream connections pick it up once every port is bound. */
    private record Routing(SipRouter router, Optional<EdgeChallengeHandler> challenges) {
    }

    /** What every pipeline shares. */
    private record Edge(BalancerSettings settings, NodeSet nodes, BalancerCounters counters,
                        TcpConnections connections, SourceGuard guard, ConnectionGate gate, BadInputReporter bad,
                        NodeLoad load, KeyOwners owners, ProbeRoundTrips roundTrips, SlowStart slowStart,
                        NodeResponses responses) {
    }

    private SipBalancer(HostPort address, Edge edge, EventLoopGroup udpGroup, EventLoopGroup nodeGroup,
                        EventLoopGroup acceptGroup, EventLoopGroup tcpGroup, Channel[] bound) {
        this.address = address;
        this.edge = edge;
        this.nodes = edge.nodes();
        this.counters = edge.counters();
        this.connections = edge.connections();
        this.udpGroup = udpGroup;
        this.nodeGroup = nodeGroup;
        this.acceptGroup = acceptGroup;
        this.tcpGroup = tcpGroup;
        this.udp = bound[0];
        this.tcp = bound[1];
        this.tls = bound[2];
        this.nodeSide = bound[3];
    }

    /**
     * Binds UDP and TCP (and TLS, if configured) and starts probing the nodes.
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
                    && (a.equals(bindAddress) || a.isAnyLocalAddress()
                        || bindAddress.isAnyLocalAddress() && isLocal(a))) {
                throw new BalancerStartException("node " + n.address()
                        + " is the balancer's own address; it would forward requests to itself");
            }
        }

        Set<InetAddress> trusted = new HashSet<>(settings.trustedSources());
        for (NodeSet.Node n : nodes.all()) {
            // The nodes' responses and probes' answers are the balancer's own traffic, never limited.
            trusted.add(n.socket().getAddress());
        }
        BalancerCounters counters = new BalancerCounters();
        SourceGuard guard = new SourceGuard(settings.sourceLimits(), trusted);
        BadInputReporter bad = BadInputReporter.standard();
        Edge edge = new Edge(settings, nodes, counters, new TcpConnections(), guard,
                new ConnectionGate(settings.connections(), guard, counters, bad), bad,
                new NodeLoad(nodes.all().size()), new KeyOwners(nodes.all().size()),
                new ProbeRoundTrips(nodes.all().size()), new SlowStart(nodes.all().size(), settings.slowStart()),
                new NodeResponses(nodes));
        EventLoopGroup udpGroup = new NioEventLoopGroup(1, new DefaultThreadFactory("p2psip-lb-udp", true));
        EventLoopGroup nodeGroup = new NioEventLoopGroup(1, new DefaultThreadFactory("p2psip-lb-nodes", true));
        EventLoopGroup acceptGroup = new NioEventLoopGroup(1, new DefaultThreadFactory("p2psip-lb-accept", true));
        EventLoopGroup tcpGroup = new NioEventLoopGroup(
                Math.max(1, Runtime.getRuntime().availableProcessors()), new DefaultThreadFactory("p2psip-lb-tcp", true));
        Channel[] bound = null;
        try {
            bound = bind(edge, bindAddress, port, udpGroup, nodeGroup, acceptGroup, tcpGroup);
        } finally {
            if (bound == null) {
                shutdown(udpGroup, nodeGroup, acceptGroup, tcpGroup);
            }
        }
        int boundPort = ((InetSocketAddress) bound[0].localAddress()).getPort();
        HostPort actual = new HostPort(bindAddress.getHostAddress(), boundPort);
        return new SipBalancer(actual, edge, udpGroup, nodeGroup, acceptGroup, tcpGroup, bound);
    }

    private static Channel[] bind(Edge edge, InetAddress bindAddress, int port, EventLoopGroup udpGroup,
                                  EventLoopGroup nodeGroup, EventLoopGroup acceptGroup, EventLoopGroup tcpGroup)
            throws BalancerStartException {
        BalancerSettings settings = edge.settings();
        BalancerCounters counters = edge.counters();
        NodeSet nodes = edge.nodes();
        SourceGuardHandler guard = new SourceGuardHandler(edge.guard(), counters, edge.bad());
        int unauthenticated = settings.unauthenticatedRate();
        Optional<CredentialFreeBudgetHandler> budget = unauthenticated > 0
                ? Optional.of(new CredentialFreeBudgetHandler(new CredentialFreeBudget(unauthenticated,
                        2 * unauthenticated, System.nanoTime()), counters))
                : Optional.empty();
        SipParserHandler parser = new SipParserHandler(counters, edge.bad());
        Optional<UnansweredChallengeWarnings> unanswered = settings.edgeChallenges().map(c ->
                new UnansweredChallengeWarnings(c.algorithms(), Clock.systemUTC(),
                        CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS),
                        LoggerFactory.getLogger(EdgeChallengeHandler.class)));
        for (int attempt = 0; attempt < (port == 0 ? BIND_ATTEMPTS : 1); attempt++) {
            UdpEgress egress = new UdpEgress(edge.connections(), counters);
            // The router needs the balancer's identity, which needs the port, which a port-0 bind only
            // reveals once TCP is bound: accepted connections pick the router up from here.
            AtomicReference<Routing> routerOnceBound = new AtomicReference<>();
            ChannelFuture tcpBind = streamListener(edge, Transport.TCP, guard, budget, parser, routerOnceBound,
                    acceptGroup, tcpGroup).bind(new InetSocketAddress(bindAddress, port)).awaitUninterruptibly();
            if (!tcpBind.isSuccess()) {
                throw new BalancerStartException("TCP port " + bindAddress.getHostAddress() + ":" + port
                        + " is already in use (" + oneLine(tcpBind.cause()) + ")");
            }
            Channel tcp = tcpBind.channel();
            int actualPort = ((InetSocketAddress) tcp.localAddress()).getPort();
            HostPort advertised = advertised(settings, bindAddress, actualPort);
            // Requests to the nodes leave from a socket of their own, so that the nodes' answers never wait
            // in (or overflow from) the queue of clients' requests: under a flood those answers are what
            // stops the clients' retransmissions.
            ChannelFuture nodeSideBind = datagramBootstrap(nodeGroup).handler(new ChannelInitializer<DatagramChannel>() {
                @Override
                protected void initChannel(DatagramChannel ch) {
                }
            }).bind(new InetSocketAddress(bindAddress, 0)).awaitUninterruptibly();
            if (!nodeSideBind.isSuccess()) {
                tcp.close().awaitUninterruptibly();
                throw new BalancerStartException("no UDP port free at " + bindAddress.getHostAddress()
                        + " for the requests to the nodes (" + oneLine(nodeSideBind.cause()) + ")");
            }
            Channel nodeSide = nodeSideBind.channel();
            BalancerIdentity plain = BalancerIdentity.of(advertised).withNodeSide(new HostPort(advertised.host(),
                    ((InetSocketAddress) nodeSide.localAddress()).getPort()));
            BalancerIdentity self = settings.tls().map(t -> plain.withSecure(t.address())).orElse(plain);
            LocalAnswers answers = new LocalAnswers(self);
            SipRouter router = new SipRouter(self, new NodeSelector(settings.policy(), nodes, edge.owners(), edge.load(),
                    counters, edge.slowStart()),
                    nodes, egress, counters, settings.retryAfterSeconds(), System::nanoTime, ThreadLocalRandom::current,
                    new FlowTokens());
            Optional<EdgeChallengeHandler> challenges = settings.edgeChallenges()
                    .map(c -> new EdgeChallengeHandler(c.alsoAt(ownAddresses(self)), answers, egress, counters,
                            unanswered.orElseThrow(), Clock.systemUTC()));
            ChannelFuture udpBind = datagramBootstrap(udpGroup)
                    .handler(new ChannelInitializer<DatagramChannel>() {
                        @Override
                        protected void initChannel(DatagramChannel ch) {
                            ch.pipeline().addLast("guard", guard)
                                    .addLast("frame", new SipDatagramDecoder(settings.maxMessageBytes(), answers,
                                            counters, edge.bad()))
                                    .addLast("parse", parser)
                                    .addLast("health", new HealthChecker(nodes, edge.owners(), edge.slowStart(),
                                            edge.roundTrips(), System::nanoTime, self,
                                            settings.probeInterval(), settings.probeFailures(),
                                            edge.responses()))
                                    .addLast("route", router);
                            budget.ifPresent(b -> ch.pipeline().addAfter("guard", "budget", b));
                            challenges.ifPresent(c -> ch.pipeline().addBefore("route", "challenge", c));
                        }
                    }).bind(new InetSocketAddress(bindAddress, actualPort)).awaitUninterruptibly();
            if (!udpBind.isSuccess()) {
                closeAll(tcp, nodeSide);
                if (port == 0) {
                    continue;
                }
                throw new BalancerStartException("UDP port " + bindAddress.getHostAddress() + ":" + port
                        + " is already in use (" + oneLine(udpBind.cause()) + ")");
            }
            Channel udp = udpBind.channel();
            Channel tls = null;
            if (settings.tls().isPresent()) {
                HostPort at = settings.tls().get().address();
                ChannelFuture tlsBind;
                try {
                    tlsBind = streamListener(edge, Transport.TLS, guard, budget, parser, routerOnceBound,
                            acceptGroup, tcpGroup).bind(new InetSocketAddress(InetAddress.getByName(at.host()), at.port()))
                            .awaitUninterruptibly();
                } catch (UnknownHostException e) {
                    closeAll(udp, tcp, nodeSide);
                    throw new BalancerStartException("unknown TLS host '" + at.host() + "'");
                }
                if (!tlsBind.isSuccess()) {
                    closeAll(udp, tcp, nodeSide);
                    throw new BalancerStartException("TLS port " + at + " is already in use ("
                            + oneLine(tlsBind.cause()) + ")");
                }
                tls = tlsBind.channel();
            }
            nodeSide.pipeline().addLast("guard", guard)
                    .addLast("frame", new SipDatagramDecoder(settings.maxMessageBytes(), answers, counters,
                            edge.bad()))
                    .addLast("parse", parser)
                    .addLast("alive", edge.responses())
                    .addLast("route", router);
            egress.udp = udp;
            egress.nodeSide = nodeSide;
            routerOnceBound.set(new Routing(router, challenges));
            return new Channel[] {udp, tcp, tls, nodeSide};
        }
        throw new BalancerStartException("no port free on both UDP and TCP at " + bindAddress.getHostAddress());
    }

    /** Where phones reach this balancer: its advertised SIP address, and its TLS one if it has one. */
    private static HostPort[] ownAddresses(BalancerIdentity self) {
        return self.secure().map(tls -> new HostPort[] {self.advertised(), tls}).orElse(new HostPort[] {self.advertised()});
    }

    private static Bootstrap datagramBootstrap(EventLoopGroup group) {
        return new Bootstrap().group(group).channel(NioDatagramChannel.class)
                // A datagram is one message: read it whole (up to the 65,535 bytes UDP can carry), not the
                // default 2 KB of it; a shorter buffer would silently cut longer datagrams.
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(UDP_RECEIVE_BUFFER))
                .option(ChannelOption.SO_RCVBUF, 4 << 20)
                .option(ChannelOption.SO_SNDBUF, 4 << 20);
    }

    /** A TCP or TLS listener; its connections start routing once {@code router} is set. */
    private static ServerBootstrap streamListener(Edge edge, Transport transport, SourceGuardHandler guard,
                                                  Optional<CredentialFreeBudgetHandler> budget,
                                                  SipParserHandler parser, AtomicReference<Routing> routing,
                                                  EventLoopGroup acceptGroup, EventLoopGroup tcpGroup) {
        BalancerSettings settings = edge.settings();
        ConnectionLimits limits = settings.connections();
        long deadline = limits.messageDeadline().toNanos();
        return new ServerBootstrap().group(acceptGroup, tcpGroup)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        Routing bound = routing.get();
                        if (bound == null) {
                            ch.close();
                            return;
                        }
                        ch.pipeline().addLast("gate", edge.gate())
                                .addLast("idle", new IdleTimeout(limits.idleTimeout().toNanos(), edge.counters()));
                        if (transport == Transport.TLS) {
                            SslHandler ssl = new SslHandler(settings.tls().orElseThrow().material().serverEngine());
                            // A handshake is bytes a client must send, like a message: same deadline.
                            ssl.setHandshakeTimeout(deadline, TimeUnit.NANOSECONDS);
                            ch.pipeline().addLast("tls", ssl);
                        }
                        ch.pipeline().addLast("connections", edge.connections())
                                .addLast("frame", new SipStreamFramer(settings.maxMessageBytes(), deadline, transport,
                                        new LocalAnswers(bound.router().identity()), edge.counters(), edge.bad(),
                                        edge.gate()::spoke))
                                .addLast("guard", guard)
                                .addLast("parse", parser)
                                .addLast("route", bound.router());
                        budget.ifPresent(b -> ch.pipeline().addAfter("guard", "budget", b));
                        bound.challenges().ifPresent(c -> ch.pipeline().addBefore("route", "challenge", c));
                    }
                });
    }

    private static void closeAll(Channel... channels) {
        for (Channel c : channels) {
            c.close().awaitUninterruptibly();
        }
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

    /** The UDP socket requests to the nodes leave from, and their responses come back to. */
    public HostPort nodeSideAddress() {
        InetSocketAddress a = (InetSocketAddress) nodeSide.localAddress();
        return new HostPort(a.getAddress().getHostAddress(), a.getPort());
    }

    /** Where the balancer listens for SIP over TLS, if it does. */
    public Optional<HostPort> tlsAddress() {
        if (tls == null) {
            return Optional.empty();
        }
        InetSocketAddress a = (InetSocketAddress) tls.localAddress();
        return Optional.of(new HostPort(a.getAddress().getHostAddress(), a.getPort()));
    }

    /** Open client TCP and TLS connections. */
    public int tcpConnections() {
        return connections.size();
    }

    /** Per-source limits as they stand: bans, drops. */
    public SourceGuard sourceGuard() {
        return edge.guard();
    }

    /** What the nodes have said about their load. */
    public NodeLoad nodeLoad() {
        return edge.load();
    }

    /** The key ranges each node last claimed in its probe answers. */
    public KeyOwners keyOwners() {
        return edge.owners();
    }

    /** How it places new requests. */
    public BalancingPolicy policy() {
        return edge.settings().policy();
    }

    /** The nodes' slow starts: the share of new requests each is given now. */
    public SlowStart slowStart() {
        return edge.slowStart();
    }

    /** How long each node took to answer its last answered probe. */
    public ProbeRoundTrips probeRoundTrips() {
        return edge.roundTrips();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        udp.close().awaitUninterruptibly();
        nodeSide.close().awaitUninterruptibly();
        tcp.close().awaitUninterruptibly();
        if (tls != null) {
            tls.close().awaitUninterruptibly();
        }
        shutdown(udpGroup, nodeGroup, acceptGroup, tcpGroup);
    }

    private static void shutdown(EventLoopGroup... groups) {
        for (EventLoopGroup g : groups) {
            g.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        }
        for (EventLoopGroup g : groups) {
            g.terminationFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    /** Whether {@code a} is an address of this host, which a wildcard bind also listens on. */
    private static boolean isLocal(InetAddress a) {
        if (a.isLoopbackAddress()) {
            return true;
        }
        try {
            return java.net.NetworkInterface.getByInetAddress(a) != null;
        } catch (java.net.SocketException e) {
            return false;
        }
    }

    /** As the node's: the advertised address, else the bound one; a wildcard bind must say which. */
    private static HostPort advertised(BalancerSettings settings, InetAddress bound, int port)
            throws BalancerStartException {
        if (settings.advertise().isPresent()) {
            HostPort a = settings.advertise().get();
            return new HostPort(a.host(), a.port() == 0 ? port : a.port());
        }
        if (bound.isAnyLocalAddress()) {
            throw new BalancerStartException("--sip " + settings.sip() + " listens on every interface; say which "
                    + "address clients reach the balancer at with --advertise HOST[:PORT]");
        }
        return new HostPort(bound.getHostAddress(), port);
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
        private volatile Channel nodeSide;

        UdpEgress(TcpConnections connections, BalancerCounters counters) {
            this.connections = connections;
            this.counters = counters;
        }

        @Override
        public void toNode(InetSocketAddress node, ByteBuf message) {
            nodeSide.writeAndFlush(new DatagramPacket(message, node), nodeSide.voidPromise());
        }

        @Override
        public void toAgent(InetSocketAddress agent, ByteBuf message) {
            udp.writeAndFlush(new DatagramPacket(message, agent), udp.voidPromise());
        }

        @Override
        public boolean toFlow(long connection, ByteBuf message) {
            Optional<Channel> c = connections.lookup(connection);
            if (c.isEmpty()) {
                message.release();
                return false;
            }
            c.get().writeAndFlush(message, c.get().voidPromise());
            return true;
        }

        @Override
        public void toClient(ReturnAddress client, ByteBuf message) {
            if (!client.transport().stream()) {
                udp.writeAndFlush(new DatagramPacket(message, client.address()), udp.voidPromise());
                return;
            }
            if (!toFlow(client.connection(), message)) {
                // RFC 3261 §18.2.2 would open a new connection to sent-by; a balancer keeps it simple.
                counters.countUndeliverable();
            }
        }
    }

    /** For tests: the nodes currently up. */
    public List<HostPort> liveNodes() {
        return nodes.live().stream().map(NodeSet.Node::address).toList();
    }
}
