package org.p2psip.core.overlay;

import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.function.Supplier;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * The UDP pipeline's authentication: seals every outbound frame for the
 * peer it goes to (see {@link DatagramRoute}) with the time and a random
 * nonce, and passes on only inbound frames that {@link DatagramSeal} finds
 * authentic, addressed to this socket and fresh. A refused datagram is
 * dropped without an answer (one socket serves every peer, so it is never
 * closed) and reported to {@code refusals}.
 */
final class DatagramAuthenticator extends ChannelDuplexHandler {

    private final DatagramSeal seal;
    private final DatagramRoute route;
    private final Clock clock;
    private final OverlayRefusals refusals;
    private final Supplier<InetSocketAddress> local;
    private final SecureRandom random = new SecureRandom();

    /**
     * @param local the address this socket is bound to, as frames name their destination
     */
    DatagramAuthenticator(DatagramSeal seal, DatagramRoute route, Clock clock, OverlayRefusals refusals,
                          Supplier<InetSocketAddress> local) {
        this.seal = seal;
        this.route = route;
        this.clock = clock;
        this.refusals = refusals;
        this.local = local;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf frame)) {
            ctx.fireChannelRead(msg);
            return;
        }
        DatagramSeal.Opened opened;
        try {
            opened = seal.open(ByteBufUtil.getBytes(frame), local.get(), clock.millis());
        } finally {
            frame.release();
        }
        if (!opened.accepted()) {
            refusals.refused(route.inboundSender, switch (opened.refusal()) {
                case TRUNCATED -> "a datagram too short to be an overlay frame";
                case BAD_MAC -> "a datagram whose MAC does not match the overlay secret";
                case MISADDRESSED -> "a datagram addressed to another node";
                case STALE -> "a datagram stamped outside the freshness window (replayed, or a skewed clock)";
                case REPLAYED -> "a replayed datagram";
                case WINDOW_FULL -> "a datagram while the replay window is full";
            });
            return;
        }
        ctx.fireChannelRead(Unpooled.wrappedBuffer(opened.body()));
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf frame)) {
            ctx.write(msg, promise);
            return;
        }
        byte[] body;
        try {
            body = ByteBufUtil.getBytes(frame);
        } finally {
            frame.release();
        }
        InetSocketAddress to = route.outboundPeer;
        if (to == null || to.isUnresolved()) {
            promise.setFailure(new IllegalStateException("a datagram frame without a resolved destination"));
            return;
        }
        byte[] nonce = new byte[DatagramSeal.NONCE_BYTES];
        random.nextBytes(nonce);
        ctx.write(Unpooled.wrappedBuffer(seal.seal(body, to, clock.millis(), nonce)), promise);
    }
}
