package org.p2psip.loadtest.bench;

import java.net.InetAddress;
import java.net.InetSocketAddress;
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

/**
 * The built-in user agent server of the call and message scenarios, and
 * the trivial responder of {@code p2psip bench responder}: a
 * {@link UasResponder} listening on UDP and TCP on one port, as SIP
 * elements do (RFC 3261 §18.1.1 sends to the same port over either), on
 * its own event-loop threads so that it never competes with the lanes'.
 */
public final class BuiltInUas implements AutoCloseable {

    private final EventLoopGroup group;
    private final Channel udp;
    private final Channel tcp;
    private final String hostPort;
    private final LongAdder dropped;

    private BuiltInUas(EventLoopGroup group, Channel udp, Channel tcp, String hostPort, LongAdder dropped) {
        this.group = group;
        this.udp = udp;
        this.tcp = tcp;
        this.hostPort = hostPort;
        this.dropped = dropped;
    }

    /**
     * Starts on {@code host}:{@code port} (port 0: one free for both UDP and TCP).
     *
     * @param threads event-loop threads
     */
    public static BuiltInUas start(InetAddress host, int port, int threads) {
        EventLoopGroup group = new NioEventLoopGroup(threads);
        LongAdder dropped = new LongAdder();
        BenchException last = null;
        for (int attempt = 0; attempt < (port == 0 ? 20 : 1); attempt++) {
            Channel udp = null;
            try {
                udp = bindUdp(group, host, port, dropped);
                int bound = ((InetSocketAddress) udp.localAddress()).getPort();
                String hp = Sockets.hostPort(host, bound);
                Channel tcp = bindTcp(group, host, bound, dropped);
                return new BuiltInUas(group, udp, tcp, hp, dropped);
            } catch (BenchException e) {
                last = e;
                if (udp != null) {
                    udp.close().awaitUninterruptibly();
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
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
    }

    private static Channel bindUdp(EventLoopGroup group, InetAddress host, int port, LongAdder dropped) {
        Bootstrap b = Sockets.udpOptions(new Bootstrap().group(group).channel(NioDatagramChannel.class))
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        ch.pipeline().addLast(new DatagramSipDecoder(dropped), new DatagramSipEncoder(null),
                                new UasResponder(false));
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
                                new UasResponder(true));
                    }
                });
        try {
            return b.bind(new InetSocketAddress(host, port)).sync().channel();
        } catch (Exception e) {
            throw new BenchException("cannot listen on TCP " + Sockets.hostPort(host, port) + ": " + e.getMessage(), e);
        }
    }
}
