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
 * unreachable, closed connection, remote error).
 *
 * <p>Every connection starts with the {@link OverlayHandshake}: both ends
 * prove they hold the {@link OverlaySecret} against nonces fresh for this
 * connection, and until the peer has, the node reads nothing but the
 * handshake's fixed {@value OverlayHandshake#HANDSHAKE_BYTES} bytes, within
 * {@link #HANDSHAKE_DEADLINE}, with at most {@link #MAX_IN_HANDSHAKE}
 * connections in their handshake at once. After it, every frame is
 * length-prefixed, at most {@code maxPayloadBytes} of payload (larger
 * requests fail before sending, larger incoming frames close the
 * connection), and sealed by {@link SessionFraming} with a sequence number
 * and the connection's session key, so a frame recorded on one connection is
 * refused on any other and a frame replayed on its own is out of sequence.
 */
public final class NettyOverlayTransport implements OverlayTransport {

    private static final AttributeKey<Set<Long>> OUTSTANDING = AttributeKey.valueOf("p2psip.outstanding");
    /** How long a connection may take to authenticate before it is closed. */
    public static final Duration HANDSHAKE_DEADLINE = Duration.ofSeconds(5);
    /** Connections (inbound and outbound) that may be in their handshake at once; more are closed at once. */
    public static final int MAX_IN_HANDSHAKE = 64;

    private static final String SUSPECTS = "(not an overlay node, or a different overlay-secret)";

    private final EventLoopGroup group;
    private final Channel server;
    private final Bootstrap client;
    private final PendingRequests pending;
    private final int maxPayloadBytes;
    private final Map<HostPort, CompletableFuture<Channel>> connections = new ConcurrentHashMap<>();
    private final OverlayRefusals refusals;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final HostPort local;

    private NettyOverlayTransport(EventLoopGroup group, Channel server, Bootstrap client, PendingRequests pending,
                                  int maxPayloadBytes, OverlayRefusals refusals, HostPort local) {
        this.group = group;
        this.server = server;
        this.client = client;
        this.pending = pending;
        this.maxPayloadBytes = maxPayloadBytes;
        this.refusals = refusals;
        this.local = local;
    }

    /**
     * Binds {@code listen} (port 0 picks a free one) and serves requests with
     * {@code handler}. Fails with an {@link OverlayException} whose message
     * fits on one line when the address is busy or cannot be bound.
     */
    public static CompletableFuture<NettyOverlayTransport> bind(HostPort listen, OverlaySecret secret,
                                                                int maxPayloadBytes, OverlayRequestHandler handler) {
        return bind(listen, secret, maxPayloadBytes, HANDSHAKE_DEADLINE, MAX_IN_HANDSHAKE, handler);
    }

    /** As {@link #bind(HostPort, OverlaySecret, int, OverlayRequestHandler)}, with the handshake bounds given. */
    static CompletableFuture<NettyOverlayTransport> bind(HostPort listen, OverlaySecret secret, int maxPayloadBytes,
                                                         Duration handshakeDeadline, int maxInHandshake,
                                                         OverlayRequestHandler handler) {
        EventLoopGroup group = new NioEventLoopGroup(2, new DefaultThreadFactory("overlay-" + listen.port(), true));
        PendingRequests pending = new PendingRequests(group);
        OverlayRefusals refusals = new OverlayRefusals();
        OverlayHandshake.Admission admission = new OverlayHandshake.Admission(maxInHandshake);
        int maxWire = OverlayFrame.HEADER_BYTES + maxPayloadBytes + FrameSession.OVERHEAD_BYTES;
        ChannelInitializer<SocketChannel> pipeline = new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                // An accepted channel has the server channel as its parent; ours connected.
                FrameSession.Role role = ch.parent() != null ? FrameSession.Role.ACCEPTOR
                        : FrameSession.Role.INITIATOR;
                ch.pipeline()
                        .addLast("handshake", new OverlayHandshake(secret, role, handshakeDeadline, admission,
                                refusals))
                        .addLast("framer", new LengthFieldBasedFrameDecoder(maxWire, 0, 4, 0, 4))
                        .addLast("prepender", new LengthFieldPrepender(4))
                        .addLast("session", new SessionFraming(refusals))
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
                        refusals, new HostPort(listen.host(), bound.getPort())));
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
    @Override
    public HostPort localAddress() {
        return local;
    }

    /**
     * Connections and frames refused: handshakes that failed or timed out,
     * frames whose MAC did not verify or that were replayed or out of order.
     */
    public long droppedFrames() {
        return refusals.count();
    }

    /**
     * Sends one request to {@code peer} and completes with its answer's
     * payload, or fails with an {@link OverlayException} no later than
     * {@code timeout}.
     */
    @Override
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
        channelTo(peer, timeout).whenComplete((ch, failure) -> {
            if (failure != null) {
                pending.fail(id, failure instanceof OverlayException o ? o
                        : new OverlayException(OverlayException.Reason.UNREACHABLE, "cannot connect to overlay peer "
                                + peer + ": " + failure.getMessage()));
                return;
            }
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

    /**
     * The authenticated connection to {@code peer}: the one open already, or a
     * new one, handed out only once its handshake has completed.
     */
    private CompletableFuture<Channel> channelTo(HostPort peer, Duration timeout) {
        return connections.compute(peer, (p, existing) -> {
            if (existing != null && (!existing.isDone()
                    || (!existing.isCompletedExceptionally() && existing.join().isActive()))) {
                return existing;
            }
            CompletableFuture<Channel> ready = new CompletableFuture<>();
            int connectMillis = (int) Math.max(1, Math.min(timeout.toMillis(), Integer.MAX_VALUE));
            ChannelFuture f = client.clone().option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectMillis)
                    .connect(p.host(), p.port());
            Set<Long> outstanding = ConcurrentHashMap.newKeySet();
            f.channel().attr(OUTSTANDING).set(outstanding);
            f.addListener((ChannelFuture connected) -> {
                if (!connected.isSuccess()) {
                    ready.completeExceptionally(new OverlayException(OverlayException.Reason.UNREACHABLE,
                            "cannot connect to overlay peer " + p + ": " + connected.cause().getMessage()));
                    return;
                }
                OverlayHandshake.authenticated(connected.channel()).addListener(authenticated -> {
                    if (authenticated.isSuccess()) {
                        ready.complete(connected.channel());
                    } else {
                        ready.completeExceptionally(new OverlayException(OverlayException.Reason.UNREACHABLE,
                                "overlay peer " + p + " did not complete the handshake " + SUSPECTS));
                    }
                });
            });
            // A dead connection fails its requests at once rather than at their timeouts.
            f.channel().closeFuture().addListener(c -> {
                connections.remove(p, ready);
                ready.completeExceptionally(new OverlayException(OverlayException.Reason.UNREACHABLE,
                        "connection to overlay peer " + p + " closed before its handshake completed " + SUSPECTS));
                for (Long id : outstanding) {
                    pending.fail(id, new OverlayException(OverlayException.Reason.CLOSED,
                            "connection to overlay peer " + p + " closed"));
                }
            });
            return ready;
        });
    }

    /** Closes the listener and every connection; pending requests fail with {@code CLOSED}. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        server.close();
        connections.values().forEach(f -> f.thenAccept(Channel::close));
        pending.failAll(new OverlayException(OverlayException.Reason.CLOSED, "overlay transport " + local
                + " closed"));
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
