package org.p2psip.loadtest.bench;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslHandler;

import org.p2psip.core.tls.TlsMaterial;

/**
 * The built-in user agent server of the call and message scenarios, and
 * the trivial responder of {@code p2psip bench responder}: a
 * {@link UasResponder} listening on UDP and TCP on one port, as SIP
 * elements do (RFC 3261 §18.1.1 sends to the same port over either), and
 * optionally on TLS on a port of its own (§26.2; TLS and plain TCP cannot
 * share one without guessing from the first bytes), on its own event-loop
 * threads so that it never competes with the lanes'.
 */
public final class BuiltInUas implements AutoCloseable {

    /** Longest a TLS client may take over its handshake before the connection is dropped. */
    static final long HANDSHAKE_MILLIS = 5000;

    private final EventLoopGroup group;
    private final Channel udp;
    private final Channel tcp;
    private final Channel tls;
    private final String hostPort;
    private final LongAdder dropped;

    private BuiltInUas(EventLoopGroup group, Channel udp, Channel tcp, Channel tls, String hostPort,
                       LongAdder dropped) {
        this.group = group;
        this.udp = udp;
        this.tcp = tcp;
        this.tls = tls;
        this.hostPort = hostPort;
        this.dropped = dropped;
    }

    /**
     * Where the UAS listens for TLS and what it presents there.
     *
     * @param host     address to listen on
     * @param port     port, 0 for a free one
     * @param material the certificate chain and key
     */
    public record TlsSide(InetAddress host, int port, TlsMaterial material) {

        public TlsSide {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(material, "material");
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be between 0 and 65535");
            }
        }
    }

    /**
     * Starts on {@code host}:{@code port} (port 0: one free for both UDP and TCP).
     *
     * @param threads event-loop threads
     */
    public static BuiltInUas start(InetAddress host, int port, int threads) {
        return start(host, port, threads, null);
    }

    /**
     * Starts on {@code host}:{@code port} for UDP and TCP and, unless
     * {@code tlsSide} is null, on its address for TLS.
     *
     * @param threads event-loop threads
     */
    public static BuiltInUas start(InetAddress host, int port, int threads, TlsSide tlsSide) {
        EventLoopGroup group = new NioEventLoopGroup(threads);
        LongAdder dropped = new LongAdder();
        BenchException last = null;
        for (int attempt = 0; attempt < (port == 0 ? 20 : 1); attempt++) {
            Channel udp = null;
            Channel tcp = null;
            try {
                udp = bindUdp(group, host, port, dropped);
                int bound = ((InetSocketAddress) udp.localAddress()).getPort();
                String hp = Sockets.hostPort(host, bound);
                tcp = bindTcp(group, host, bound, dropped);
                Channel tls = tlsSide == null ? null : bindTls(group, tlsSide, dropped);
                return new BuiltInUas(group, udp, tcp, tls, hp, dropped);
            } catch (BenchException e) {
                last = e;
                if (udp != null) {
                    udp.close().awaitUninterruptibly();
                }
                if (tcp != null) {
                    tcp.close().awaitUninterruptibly();
                }
            }
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        throw last;
    }

    /** host:port the UAS listens on (UDP and TCP). */
    public String hostPort() {
        return hostPort;
    }

    /**
     * host:port the UAS listens on over {@code transport}.
     *
     * @throws IllegalStateException for TLS when the UAS was started without it
     */
    public String hostPort(BenchTransport transport) {
        if (transport != BenchTransport.TLS) {
            return hostPort;
        }
        if (tls == null) {
            throw new IllegalStateException("the UAS does not listen for TLS");
        }
        InetSocketAddress a = (InetSocketAddress) tls.localAddress();
        return Sockets.hostPort(a.getAddress(), a.getPort());
    }

    public int port() {
        return ((InetSocketAddress) udp.localAddress()).getPort();
    }

    /** Messages received that could not be parsed. */
    public long dropped() {
        return dropped.sum();
    }

    @Override
    public void close() {
        udp.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        tcp.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        if (tls != null) {
            tls.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
    }

    private static Channel bindUdp(EventLoopGroup group, InetAddress host, int port, LongAdder dropped) {
        Bootstrap b = Sockets.udpOptions(new Bootstrap().group(group).channel(NioDatagramChannel.class))
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        ch.pipeline().addLast(new DatagramSipDecoder(dropped), new DatagramSipEncoder(null),
                                new UasResponder(BenchTransport.UDP));
                    }
                });
        try {
            return b.bind(new InetSocketAddress(host, port)).sync().channel();
        } catch (Exception e) {
            throw new BenchException("cannot listen on UDP " + Sockets.hostPort(host, port) + ": " + e.getMessage(), e);
        }
    }

    private static Channel bindTcp(EventLoopGroup group, InetAddress host, int port, LongAdder dropped) {
        ServerBootstrap b = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new SipStreamDecoder(), new StreamSipEncoder(),
                                new UasResponder(BenchTransport.TCP));
                    }
                });
        try {
            return b.bind(new InetSocketAddress(host, port)).sync().channel();
        } catch (Exception e) {
            throw new BenchException("cannot listen on TCP " + Sockets.hostPort(host, port) + ": " + e.getMessage(), e);
        }
    }

    private static Channel bindTls(EventLoopGroup group, TlsSide side, LongAdder dropped) {
        ServerBootstrap b = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        SslHandler ssl = new SslHandler(side.material().serverEngine());
                        ssl.setHandshakeTimeoutMillis(HANDSHAKE_MILLIS);
                        ch.pipeline().addLast(ssl, new SipStreamDecoder(), new StreamSipEncoder(),
                                new UasResponder(BenchTransport.TLS));
                    }
                });
        try {
            return b.bind(new InetSocketAddress(side.host(), side.port())).sync().channel();
        } catch (Exception e) {
            throw new BenchException("cannot listen on TLS " + Sockets.hostPort(side.host(), side.port()) + ": "
                    + e.getMessage(), e);
        }
    }
}
