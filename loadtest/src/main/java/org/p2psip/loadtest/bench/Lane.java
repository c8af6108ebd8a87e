package org.p2psip.loadtest.bench;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import javax.net.ssl.SSLEngine;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;

/**
 * One load lane: a socket (a UDP socket, or one TCP or TLS connection to
 * the target) on one event-loop thread, running one {@link LaneEngine} per
 * phase. Everything the engine does happens on that thread; the lane only
 * wires the socket to it and ticks it every millisecond.
 */
final class Lane implements AutoCloseable {

    /** How often the engine is ticked: pacing and timers are exact to this. */
    static final long TICK_MICROS = 1000;

    private final Channel channel;
    private final String sentBy;
    private LaneEngine engine;
    private LaneStats stats;
    private ScheduledFuture<?> ticker;
    private CompletableFuture<LaneStats> done;

    private Lane(Channel channel, String sentBy) {
        this.channel = channel;
        this.sentBy = sentBy;
    }

    /** Longest wait for a TLS handshake to complete, as for a TCP connect. */
    static final long HANDSHAKE_MILLIS = 5000;

    /**
     * Opens a lane on {@code loop}: binds a UDP socket on {@code local}, or
     * connects to {@code target} over TCP, or over TLS (RFC 3261 §26.2: the
     * TCP framing inside a TLS session) and completes the handshake, so a
     * certificate the lane does not trust fails here, before any load.
     *
     * @param peerHost the target as the user named it: what its certificate must name
     * @param trust    over TLS, whom to trust
     */
    static Lane open(EventLoop loop, BenchTransport transport, InetAddress local, InetSocketAddress target,
                     String peerHost, TlsTrust trust, LongAdder dropped) {
        Holder holder = new Holder();
        ChannelFuture f;
        try {
            if (transport == BenchTransport.UDP) {
                Bootstrap b = Sockets.udpOptions(new Bootstrap().group(loop).channel(NioDatagramChannel.class))
                        .handler(new ChannelInitializer<DatagramChannel>() {
                            @Override
                            protected void initChannel(DatagramChannel ch) {
                                ch.pipeline().addLast(new DatagramSipDecoder(dropped), new DatagramSipEncoder(target),
                                        new LaneHandler(holder));
                            }
                        });
                f = b.bind(new InetSocketAddress(local, 0)).sync();
            } else {
                // Made before the connection, so a trust store that cannot be read fails as itself.
                SSLEngine engine = transport == BenchTransport.TLS ? trust.clientEngine(peerHost, target.getPort()) : null;
                Bootstrap b = new Bootstrap().group(loop).channel(NioSocketChannel.class)
                        .option(ChannelOption.TCP_NODELAY, true)
                        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
                        .handler(new ChannelInitializer<SocketChannel>() {
                            @Override
                            protected void initChannel(SocketChannel ch) {
                                if (transport == BenchTransport.TLS) {
                                    SslHandler tls = new SslHandler(engine);
                                    tls.setHandshakeTimeoutMillis(HANDSHAKE_MILLIS);
                                    ch.pipeline().addLast(tls);
                                }
                                ch.pipeline().addLast(new SipStreamDecoder(), new StreamSipEncoder(),
                                        new LaneHandler(holder));
                            }
                        });
                f = b.connect(target, new InetSocketAddress(local, 0)).sync();
                if (transport == BenchTransport.TLS) {
                    awaitHandshake(f.channel(), target);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchException("interrupted while opening a socket");
        } catch (BenchException e) {
            throw e;
        } catch (Exception e) {
            throw new BenchException((transport == BenchTransport.UDP ? "cannot bind UDP on " + local
                    : "cannot connect to " + target + " over " + transport.viaToken()) + ": " + e.getMessage(), e);
        }
        InetSocketAddress bound = (InetSocketAddress) f.channel().localAddress();
        Lane lane = new Lane(f.channel(), Sockets.hostPort(local, bound.getPort()));
        holder.lane = lane;
        return lane;
    }

    /** Waits for the TLS handshake on {@code ch}; on failure closes it and says why in one line. */
    private static void awaitHandshake(Channel ch, InetSocketAddress target) throws InterruptedException {
        Future<Channel> handshake = ch.pipeline().get(SslHandler.class).handshakeFuture();
        // The handler times the handshake out itself; the margin only guards against a stuck loop.
        if (!handshake.await(HANDSHAKE_MILLIS + 1000) || !handshake.isSuccess()) {
            ch.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
            String why = handshake.cause() == null ? "no answer within " + HANDSHAKE_MILLIS + " ms"
                    : TlsTrust.handshakeFailure(handshake.cause());
            throw new BenchException("TLS handshake with " + Sockets.hostPort(target.getAddress(), target.getPort())
                    + " failed: " + why, handshake.cause());
        }
    }

    /** host:port of this lane's socket, for Via and Contact. */
    String sentBy() {
        return sentBy;
    }

    /** Runs one phase: builds the engine on the lane's thread and completes when it has finished. */
    CompletableFuture<LaneStats> run(java.util.function.Function<java.util.function.Consumer<Outgoing>, LaneEngine> engines,
                                     LaneStats phaseStats) {
        CompletableFuture<LaneStats> result = new CompletableFuture<>();
        channel.eventLoop().execute(() -> {
            if (!channel.isActive()) {
                result.completeExceptionally(new BenchException("the connection to the target is closed"));
                return;
            }
            try {
                stats = phaseStats;
                done = result;
                engine = engines.apply(o -> channel.write(o, channel.voidPromise()));
                ticker = channel.eventLoop().scheduleAtFixedRate(this::tick, 0, TICK_MICROS, TimeUnit.MICROSECONDS);
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    private void tick() {
        LaneEngine e = engine;
        if (e == null) {
            return;
        }
        try {
            e.tick(System.nanoTime());
        } finally {
            channel.flush();
        }
        if (e.finished()) {
            ticker.cancel(false);
            engine = null;
            done.complete(stats);
        }
    }

    private void onInbound(SipMessage m) {
        if (engine != null) {
            engine.onMessage(m, System.nanoTime());
        }
    }

    private void onClosed() {
        if (engine != null) {
            engine.onTransportClosed(System.nanoTime());
            tick();
        }
    }

    @Override
    public void close() {
        channel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** The lane a handler reports to, set once the channel exists. */
    private static final class Holder {
        volatile Lane lane;
    }

    /** Hands each decoded message to the lane's engine and flushes what the engine sent in reply. */
    private static final class LaneHandler extends SimpleChannelInboundHandler<Inbound> {
        private final Holder holder;

        LaneHandler(Holder holder) {
            this.holder = holder;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Inbound msg) {
            Lane lane = holder.lane;
            if (lane != null) {
                lane.onInbound(msg.message());
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            Lane lane = holder.lane;
            if (lane != null) {
                lane.onClosed();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (ctx.channel() instanceof SocketChannel) {
                ctx.close();
            }
        }
    }
}
