package org.p2psip.core.overlay;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.p2psip.core.net.HostPort;

/**
 * The overlay transport over TCP: listens on the overlay address, keeps one
 * outbound connection per peer, and sends requests whose futures complete
 * with the answer or fail with an {@link OverlayException} (timeout,
 * unreachable, closed connection, remote error). Every frame is
 * length-prefixed, at most {@code maxPayloadBytes} of payload (larger
 * requests fail before sending, larger incoming frames close the connection),
 * and authenticated with the {@link OverlaySecret}.
 */
public final class NettyOverlayTransport implements AutoCloseable {

    private static final AttributeKey<Set<Long>> OUTSTANDING = AttributeKey.valueOf("p2psip.outstanding");

    private final EventLoopGroup group;
    private final Channel server;
    private final Bootstrap client;
    private final PendingRequests pending;
    private final int maxPayloadBytes;
    private final Map<HostPort, ChannelFuture> connections = new ConcurrentHashMap<>();
    private final AtomicLong droppedFrames;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final HostPort local;

    private NettyOverlayTransport(EventLoopGroup group, Channel server, Bootstrap client, PendingRequests pending,
                                  int maxPayloadBytes, AtomicLong droppedFrames, HostPort local) {
        this.group = group;
        this.server = server;
        this.client = client;
        this.pending = pending;
        this.maxPayloadBytes = maxPayloadBytes;
        this.droppedFrames = droppedFrames;
        this.local = local;
    }

    /**
     * Binds {@code listen} (port 0 picks a free one) and serves requests with
     * {@code handler}. Fails with an {@link OverlayException} whose message
     * fits on one line when the address is busy or cannot be bound.
     */
    public static CompletableFuture<NettyOverlayTransport> bind(HostPort listen, OverlaySecret secret,
                                                                int maxPayloadBytes, OverlayRequestHandler handler) {
        EventLoopGroup group = new NioEventLoopGroup(2, new DefaultThreadFactory("overlay-" + listen.port(), true));
        PendingRequests pending = new PendingRequests(group);
        Set<String> loggedHosts = ConcurrentHashMap.newKeySet();
        AtomicLong dropped = new AtomicLong();
        ChannelInitializer<SocketChannel> pipeline = new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                int maxWire = OverlayFrame.HEADER_BYTES + maxPayloadBytes + OverlaySecret.MAC_BYTES;
                ch.pipeline()
                        .addLast("framer", new LengthFieldBasedFrameDecoder(maxWire, 0, 4, 0, 4))
                        .addLast("prepender", new LengthFieldPrepender(4))
                        .addLast("verifier", new FrameVerifier(secret, loggedHosts, dropped))
                        .addLast("signer", new FrameSigner(secret))
                        .addLast("codec", new OverlayFrameCodec())
                        .addLast("dispatcher", new OverlayDispatcher(pending, handler));
            }
        };
        Bootstrap client = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true).handler(pipeline);
        ServerBootstrap server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true).childHandler(pipeline);
        CompletableFuture<NettyOverlayTransport> result = new CompletableFuture<>();
        server.bind(listen.host(), listen.port()).addListener((ChannelFuture f) -> {
            if (f.isSuccess()) {
                InetSocketAddress bound = (InetSocketAddress) f.channel().localAddress();
                result.complete(new NettyOverlayTransport(group, f.channel(), client, pending, maxPayloadBytes,
                        dropped, new HostPort(listen.host(), bound.getPort())));
            } else {
                group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
                String why = f.cause() instanceof BindException ? "is already in use or not local"
                        : "cannot be bound: " + f.cause().getMessage();
                result.completeExceptionally(new OverlayException(OverlayException.Reason.UNREACHABLE,
                        "overlay address " + listen + " " + why, f.cause()));
            }
        });
        return result;
    }

    /** Where this transport listens (with the real port when bound to 0). */
    public HostPort localAddress() {
        return local;
    }

    /** Frames dropped because their MAC did not verify. */
    public long droppedFrames() {
        return droppedFrames.get();
    }

    /**
     * Sends one request to {@code peer} and completes with its answer's
     * payload, or fails with an {@link OverlayException} no later than
     * {@code timeout}.
     */
    public CompletableFuture<byte[]> request(HostPort peer, int type, byte[] payload, Duration timeout) {
        if (closed.get()) {
            return CompletableFuture.failedFuture(new OverlayException(OverlayException.Reason.CLOSED,
                    "overlay transport " + local + " is closed"));
        }
        if (payload.length > maxPayloadBytes) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("a " + payload.length
                    + "-byte overlay payload exceeds the " + maxPayloadBytes + "-byte frame limit"));
        }
        long id = pending.nextId();
        CompletableFuture<byte[]> answer = pending.register(id, timeout, "request " + type + " to " + peer);
        OverlayFrame frame = new OverlayFrame(OverlayFrame.Kind.REQUEST, type, id, payload);
        channelTo(peer, timeout).addListener((ChannelFuture connected) -> {
            if (!connected.isSuccess()) {
                pending.fail(id, new OverlayException(OverlayException.Reason.UNREACHABLE,
                        "cannot connect to overlay peer " + peer + ": " + connected.cause().getMessage()));
                return;
            }
            Channel ch = connected.channel();
            Set<Long> outstanding = ch.attr(OUTSTANDING).get();
            outstanding.add(id);
            answer.whenComplete((v, e) -> outstanding.remove(id));
            if (!ch.isActive()) {
                pending.fail(id, new OverlayException(OverlayException.Reason.CLOSED, "connection to " + peer
                        + " closed"));
                return;
            }
            ch.writeAndFlush(frame).addListener(written -> {
                if (!written.isSuccess()) {
                    pending.fail(id, new OverlayException(OverlayException.Reason.UNREACHABLE,
                            "cannot send to overlay peer " + peer + ": " + written.cause().getMessage()));
                }
            });
        });
        return answer;
    }

    private ChannelFuture channelTo(HostPort peer, Duration timeout) {
        return connections.compute(peer, (p, existing) -> {
            if (existing != null && (!existing.isDone() || (existing.isSuccess() && existing.channel().isActive()))) {
                return existing;
            }
            int connectMillis = (int) Math.max(1, Math.min(timeout.toMillis(), Integer.MAX_VALUE));
            ChannelFuture f = client.clone().option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectMillis)
                    .connect(p.host(), p.port());
            Set<Long> outstanding = ConcurrentHashMap.newKeySet();
            f.channel().attr(OUTSTANDING).set(outstanding);
            // A dead connection fails its requests at once rather than at their timeouts.
            f.channel().closeFuture().addListener(c -> {
                connections.remove(p, f);
                for (Long id : outstanding) {
                    pending.fail(id, new OverlayException(OverlayException.Reason.CLOSED,
                            "connection to overlay peer " + p + " closed"));
                }
            });
            return f;
        });
    }

    /** Closes the listener and every connection; pending requests fail with {@code CLOSED}. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        server.close();
        connections.values().forEach(f -> f.channel().close());
        pending.failAll(new OverlayException(OverlayException.Reason.CLOSED, "overlay transport " + local
                + " closed"));
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
