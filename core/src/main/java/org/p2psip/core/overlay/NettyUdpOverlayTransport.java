package org.p2psip.core.overlay;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import org.p2psip.core.net.HostPort;

/**
 * The overlay transport over UDP, for Kademlia: one socket both serves and
 * asks, and every frame is a datagram (split into fragments when larger
 * than one). The pipeline reuses the TCP transport's {@link OverlayFrameCodec}
 * and {@link OverlayDispatcher}, with datagram framing and addressing in
 * place of TCP's length prefix and connections, and
 * {@link DatagramAuthenticator} in place of its handshake and session: with
 * no connection to hold a session key, every frame carries its time, a
 * random nonce and its destination under the MAC, and a frame older than
 * {@link #FRESHNESS_WINDOW}, addressed elsewhere, or seen before is refused
 * (see {@link DatagramSeal}). Node clocks must agree within that window.
 *
 * <p>UDP loses datagrams, so a request is resent with the same id until
 * answered or {@code timeout} passes: first after the peer's retransmission
 * timeout ({@link RetransmissionTimer}: from its measured round trips, at
 * least {@code retryEvery}), then doubling;
 * the receiver executes it at most once and replays its answer to
 * duplicates (see {@link DatagramAddressing}). Failures are
 * {@link OverlayException}s: {@code TIMEOUT} (the peer may be dead, slow,
 * or using another secret — UDP cannot tell these apart), {@code REFUSED}
 * (the first resend also asks the peer's host whether its port is still
 * open, {@link ClosedPortCheck}: a killed process is known at once),
 * {@code REMOTE_ERROR} and {@code CLOSED}.
 */
public final class NettyUdpOverlayTransport implements OverlayTransport {

    /** How far a frame's timestamp may lie from the receiver's clock, either way. */
    public static final Duration FRESHNESS_WINDOW = Duration.ofSeconds(30);
    /**
     * Nonces remembered at most: about 40 MB, and at 8,000 datagrams a second
     * still more than a window's worth.
     */
    static final int MAX_REMEMBERED_NONCES = 1 << 19;

    /** The longest wait before a resend, measured or doubled. */
    static final long MAX_RETRY_MILLIS = 2_000;
    /** Peers whose round trips are kept; past this the timers start over (a node asks far fewer). */
    private static final int MAX_TIMED_PEERS = 4096;

    /** Fragment size: well under the 65,507-byte UDP limit. */
    static final int FRAGMENT_PAYLOAD_BYTES = 60_000;

    private final EventLoopGroup group;
    private final Channel channel;
    private final PendingRequests pending;
    private final Map<Long, InetSocketAddress> destinations;
    private final int maxPayloadBytes;
    private final Duration retryEvery;
    private final OverlayRefusals refusals;
    private final AtomicLong retransmissions = new AtomicLong();
    /** Each peer's round trips, which say when to resend to it. */
    private final Map<InetSocketAddress, RetransmissionTimer> timers = new ConcurrentHashMap<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final HostPort local;
    private final ClosedPortCheck portCheck;

    private NettyUdpOverlayTransport(EventLoopGroup group, Channel channel, PendingRequests pending,
                                     Map<Long, InetSocketAddress> destinations, int maxPayloadBytes,
                                     Duration retryEvery, OverlayRefusals refusals, HostPort local) {
        this.group = group;
        this.channel = channel;
        this.pending = pending;
        this.destinations = destinations;
        this.maxPayloadBytes = maxPayloadBytes;
        this.retryEvery = retryEvery;
        this.refusals = refusals;
        this.local = local;
        this.portCheck = new ClosedPortCheck(group, new InetSocketAddress(local.host(), 0), this::portClosed);
    }

    /**
     * Binds UDP {@code listen} (port 0 picks a free one) and serves requests
     * with {@code handler}; fails with a one-line {@link OverlayException}
     * when the address is busy or cannot be bound.
     */
    public static CompletableFuture<NettyUdpOverlayTransport> bind(HostPort listen, OverlaySecret secret,
                                                                   int maxPayloadBytes, Duration retryEvery,
                                                                   OverlayRequestHandler handler) {
        return bind(listen, secret, maxPayloadBytes, retryEvery, Clock.systemUTC(), FRESHNESS_WINDOW, handler);
    }

    /**
     * As {@link #bind(HostPort, OverlaySecret, int, Duration, OverlayRequestHandler)}, with the clock
     * frames are stamped and judged by and the freshness window given.
     */
    static CompletableFuture<NettyUdpOverlayTransport> bind(HostPort listen, OverlaySecret secret,
                                                            int maxPayloadBytes, Duration retryEvery, Clock clock,
                                                            Duration freshness, OverlayRequestHandler handler) {
        EventLoopGroup group = new NioEventLoopGroup(1, new DefaultThreadFactory("overlay-udp-" + listen.port(),
                true));
        PendingRequests pending = new PendingRequests(group);
        Map<Long, InetSocketAddress> destinations = new ConcurrentHashMap<>();
        OverlayRefusals refusals = new OverlayRefusals();
        int maxFrame = OverlayFrame.HEADER_BYTES + maxPayloadBytes + DatagramSeal.MAX_OVERHEAD_BYTES;
        // Nonces are kept by the second; a window's worth is a few dozen buckets.
        Duration bucket = freshness.dividedBy(Math.max(1, Math.min(30, freshness.toSeconds())));
        Bootstrap bootstrap = new Bootstrap().group(group).channel(NioDatagramChannel.class)
                .option(ChannelOption.SO_RCVBUF, 4 << 20)
                .option(ChannelOption.SO_SNDBUF, 4 << 20)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(64 * 1024))
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel ch) {
                        DatagramRoute route = new DatagramRoute();
                        ch.pipeline()
                                .addLast("datagrams", new DatagramFraming(route, FRAGMENT_PAYLOAD_BYTES, maxFrame,
                                        TimeUnit.SECONDS.toNanos(10)))
                                .addLast("authenticator", new DatagramAuthenticator(
                                        new DatagramSeal(secret, new NonceWindow(freshness, bucket,
                                                MAX_REMEMBERED_NONCES)),
                                        route, clock, refusals, () -> (InetSocketAddress) ch.localAddress()))
                                .addLast("codec", new OverlayFrameCodec())
                                .addLast("addressing", new DatagramAddressing(route, destinations::get,
                                        TimeUnit.SECONDS.toNanos(30), 4096))
                                .addLast("dispatcher", new OverlayDispatcher(pending, handler));
                    }
                });
        CompletableFuture<NettyUdpOverlayTransport> result = new CompletableFuture<>();
        bootstrap.bind(listen.host(), listen.port()).addListener((ChannelFuture f) -> {
            if (f.isSuccess()) {
                InetSocketAddress bound = (InetSocketAddress) f.channel().localAddress();
                result.complete(new NettyUdpOverlayTransport(group, f.channel(), pending, destinations,
                        maxPayloadBytes, retryEvery, refusals, new HostPort(listen.host(), bound.getPort())));
            } else {
                group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
                String why = f.cause() instanceof BindException ? "is already in use or not local"
                        : "cannot be bound: " + f.cause().getMessage();
                result.completeExceptionally(new OverlayException(OverlayException.Reason.UNREACHABLE,
                        "overlay address " + listen + " (UDP) " + why, f.cause()));
            }
        });
        return result;
    }

    /**
     * The one thread that reads and writes this transport's socket. An
     * overlay node may run its owner thread here ({@link OverlayRuntime#onLoop}):
     * a datagram is then handled, and the frames it causes are written,
     * without a hand-off between threads, which on two cores cost a node more
     * CPU than the protocol itself (issue 33).
     */
    public ScheduledExecutorService eventLoop() {
        return group.next();
    }

    /** Where this transport listens (with the real port when bound to 0). */
    @Override
    public HostPort localAddress() {
        return local;
    }

    /**
     * Datagrams refused: a MAC that did not verify, another destination, a
     * timestamp outside the window, or a nonce seen before.
     */
    public long droppedFrames() {
        return refusals.count();
    }

    /** Requests resent because no answer came within the retry interval. */
    public long retransmissions() {
        return retransmissions.get();
    }

    /**
     * Sends one request to {@code peer}, resending it until answered, and
     * completes with the answer's payload or fails with an
     * {@link OverlayException} no later than {@code timeout}.
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
        InetSocketAddress to = new InetSocketAddress(peer.host(), peer.port());
        if (to.isUnresolved()) {
            return CompletableFuture.failedFuture(new OverlayException(OverlayException.Reason.UNREACHABLE,
                    "overlay peer " + peer + " does not resolve"));
        }
        long id = randomId();
        destinations.put(id, to);
        CompletableFuture<byte[]> answer = pending.register(id, timeout, "request " + type + " to " + peer);
        OverlayFrame frame = new OverlayFrame(OverlayFrame.Kind.REQUEST, type, id, payload);
        RetransmissionTimer timer = timerFor(to);
        long sentAt = System.nanoTime();
        AtomicBoolean resent = new AtomicBoolean();
        answer.whenComplete((v, e) -> {
            destinations.remove(id);
            if (e == null && !resent.get()) {
                timer.answered(System.nanoTime() - sentAt);
            }
        });
        send(to, frame, answer, TimeUnit.NANOSECONDS.toMillis(timer.timeoutNanos()), timer, resent);
        return answer;
    }

    private RetransmissionTimer timerFor(InetSocketAddress peer) {
        RetransmissionTimer known = timers.get(peer);
        if (known != null) {
            return known;
        }
        if (timers.size() >= MAX_TIMED_PEERS) {
            timers.clear();
        }
        long floor = retryEvery.toNanos();
        return timers.computeIfAbsent(peer, p -> new RetransmissionTimer(floor, floor,
                Math.max(floor, TimeUnit.MILLISECONDS.toNanos(MAX_RETRY_MILLIS))));
    }

    private void send(InetSocketAddress to, OverlayFrame frame, CompletableFuture<byte[]> answer,
                      long nextRetryMillis, RetransmissionTimer timer, AtomicBoolean resent) {
        if (answer.isDone() || closed.get()) {
            return;
        }
        channel.writeAndFlush(frame);
        ScheduledFuture<?> retry = group.schedule(() -> {
            if (!answer.isDone()) {
                retransmissions.incrementAndGet();
                // Unanswered so far: a peer whose process died is told from a slow one at once by its host.
                portCheck.check(to);
                resent.set(true);
                timer.expired();
                send(to, frame, answer, Math.min(nextRetryMillis * 2, MAX_RETRY_MILLIS), timer, resent);
            }
        }, Math.max(1, nextRetryMillis), TimeUnit.MILLISECONDS);
        answer.whenComplete((v, e) -> retry.cancel(false));
    }

    /**
     * {@code peer}'s host says nothing listens on its port: every request
     * waiting for it fails now with {@code REFUSED} instead of at its
     * timeout.
     */
    private void portClosed(InetSocketAddress peer) {
        OverlayException refused = new OverlayException(OverlayException.Reason.REFUSED, "overlay peer "
                + peer.getHostString() + ":" + peer.getPort() + " is gone: its port is closed (ICMP port unreachable)");
        destinations.forEach((id, to) -> {
            if (to.equals(peer)) {
                pending.fail(id, refused);
            }
        });
    }

    private long randomId() {
        while (true) {
            long id = ThreadLocalRandom.current().nextLong();
            if (id != 0 && !destinations.containsKey(id)) {
                return id;
            }
        }
    }

    /** Closes the socket; pending requests fail with {@code CLOSED}. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        channel.close();
        pending.failAll(new OverlayException(OverlayException.Reason.CLOSED, "overlay transport " + local
                + " closed"));
        io.netty.util.concurrent.Future<?> stopped = group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        // A node whose owner thread is this loop may close from it, where waiting for the loop to end cannot end.
        if (!group.next().inEventLoop()) {
            stopped.syncUninterruptibly();
        }
    }
}
