package org.p2psip.loadtest.bench;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

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
import io.netty.util.concurrent.ScheduledFuture;

/**
 * One load lane: a socket (a UDP socket, or one TCP connection to the
 * target) on one event-loop thread, running one {@link LaneEngine} per
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

    /** Opens a lane on {@code loop}: binds a UDP socket on {@code local}, or connects to {@code target} over TCP. */
    static Lane open(EventLoop loop, BenchTransport transport, InetAddress local, InetSocketAddress target,
                     LongAdder dropped) {
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
                Bootstrap b = new Bootstrap().group(loop).channel(NioSocketChannel.class)
                        .option(ChannelOption.TCP_NODELAY, true)
                        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
                        .handler(new ChannelInitializer<SocketChannel>() {
                            @Override
                            protected void initChannel(SocketChannel ch) {
                                ch.pipeline().addLast(new SipStreamDecoder(), new StreamSipEncoder(),
                                        new LaneHandler(holder));
                            }
                        });
                f = b.connect(target, new InetSocketAddress(local, 0)).sync();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchException("interrupted while opening a socket");
        } catch (Exception e) {
            throw new BenchException((transport == BenchTransport.UDP ? "cannot bind UDP on " + local
                    : "cannot connect to " + target + " over TCP") + ": " + e.getMessage(), e);
        }
        InetSocketAddress bound = (InetSocketAddress) f.channel().localAddress();
        Lane lane = new Lane(f.channel(), Sockets.hostPort(local, bound.getPort()));
        holder.lane = lane;
        return lane;
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
