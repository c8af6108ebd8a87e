package org.p2psip.core.overlay;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.buffer.ByteBuf;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;

/**
 * The first handler of an overlay TCP connection: it runs the
 * {@link FrameSession} handshake and lets nothing else through until the
 * peer has proved it holds the cluster secret.
 *
 * <p>On the wire, each side sends {@code hello = magic(1) version(1) nonce(32)}
 * as soon as the connection is up, and its {@code proof(32)} as soon as it
 * has the other's hello. Both sizes are fixed, so until the peer's proof has
 * verified this handler reads only those {@value #HANDSHAKE_BYTES} bytes, in
 * reads of at most {@value #PRE_AUTH_READ_BYTES} bytes: an unauthenticated
 * peer cannot make the node buffer a length-prefixed frame at all, whatever
 * length it announces. A handshake that is malformed, whose proof fails, or
 * that is not complete within the deadline closes the connection; so does
 * accepting a connection while {@code maxUnauthenticated} others are still
 * in their handshake.
 *
 * <p>Once the peer's proof verifies, the session is attached to the channel
 * (see {@link #session}), {@link #authenticated} completes, and the handler
 * removes itself, handing any bytes read after the proof to the length
 * framing behind it. Nothing is written on a connection before then: the
 * transport waits for {@link #authenticated} before sending a request, and a
 * node answers only requests, which come only after it.
 */
final class OverlayHandshake extends ByteToMessageDecoder {

    static final byte VERSION = 2;
    static final int HELLO_BYTES = 2 + FrameSession.NONCE_BYTES;
    static final int HANDSHAKE_BYTES = HELLO_BYTES + FrameSession.PROOF_BYTES;
    /** Socket reads before authentication: a hello and a proof fit, a frame does not. */
    static final int PRE_AUTH_READ_BYTES = 128;

    private static final AttributeKey<FrameSession> SESSION = AttributeKey.valueOf("p2psip.overlay.session");
    private static final AttributeKey<Promise<Channel>> AUTHENTICATED =
            AttributeKey.valueOf("p2psip.overlay.authenticated");
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Connections of one transport that have not finished their handshake yet. */
    static final class Admission {
        private final AtomicInteger inHandshake = new AtomicInteger();
        private final int max;

        Admission(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("at least one connection must be admitted, not " + max);
            }
            this.max = max;
        }

        boolean tryEnter() {
            if (inHandshake.incrementAndGet() > max) {
                inHandshake.decrementAndGet();
                return false;
            }
            return true;
        }

        void leave() {
            inHandshake.decrementAndGet();
        }

        int inHandshake() {
            return inHandshake.get();
        }
    }

    private final OverlaySecret secret;
    private final FrameSession.Role role;
    private final Duration deadline;
    private final Admission admission;
    private final OverlayRefusals refusals;
    private final byte[] nonce = new byte[FrameSession.NONCE_BYTES];
    private FrameSession session;
    private boolean admitted;
    private boolean done;
    private ScheduledFuture<?> timeout;

    OverlayHandshake(OverlaySecret secret, FrameSession.Role role, Duration deadline, Admission admission,
                     OverlayRefusals refusals) {
        this.secret = secret;
        this.role = role;
        this.deadline = deadline;
        this.admission = admission;
        this.refusals = refusals;
        RANDOM.nextBytes(nonce);
    }

    /** The session of an authenticated connection; null before its handshake completes. */
    static FrameSession session(Channel channel) {
        return channel.attr(SESSION).get();
    }

    /** Completes when the peer has proved the secret; fails if the connection closes first. */
    static Future<Channel> authenticated(Channel channel) {
        return promiseOf(channel);
    }

    private static Promise<Channel> promiseOf(Channel channel) {
        Promise<Channel> promise = channel.attr(AUTHENTICATED).get();
        if (promise == null) {
            Promise<Channel> fresh = channel.eventLoop().newPromise();
            promise = channel.attr(AUTHENTICATED).setIfAbsent(fresh);
            if (promise == null) {
                promise = fresh;
            }
        }
        return promise;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        promiseOf(ctx.channel());
        ctx.channel().config().setRecvByteBufAllocator(new FixedRecvByteBufAllocator(PRE_AUTH_READ_BYTES));
        if (ctx.channel().isActive()) {
            start(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start(ctx);
        super.channelActive(ctx);
    }

    private void start(ChannelHandlerContext ctx) {
        if (admitted || done) {
            return;
        }
        if (!admission.tryEnter()) {
            refuse(ctx, "a connection while too many others are in their handshake");
            return;
        }
        admitted = true;
        timeout = ctx.executor().schedule(() -> refuse(ctx, "a connection that did not complete its handshake within "
                + deadline.toMillis() + " ms"), deadline.toMillis(), TimeUnit.MILLISECONDS);
        ByteBuf hello = ctx.alloc().buffer(HELLO_BYTES);
        hello.writeByte(OverlayFrame.MAGIC).writeByte(VERSION).writeBytes(nonce);
        ctx.writeAndFlush(hello);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (done) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (session == null) {
            if (in.readableBytes() < HELLO_BYTES) {
                return;
            }
            byte magic = in.readByte();
            byte version = in.readByte();
            if (magic != OverlayFrame.MAGIC || version != VERSION) {
                refuse(ctx, "a connection that does not open with an overlay hello (magic " + magic + " version "
                        + version + ")");
                in.skipBytes(in.readableBytes());
                return;
            }
            byte[] peerNonce = new byte[FrameSession.NONCE_BYTES];
            in.readBytes(peerNonce);
            session = FrameSession.establish(secret, role, nonce, peerNonce);
            ctx.writeAndFlush(ctx.alloc().buffer(FrameSession.PROOF_BYTES).writeBytes(session.proof()));
        }
        if (in.readableBytes() < FrameSession.PROOF_BYTES) {
            return;
        }
        byte[] proof = new byte[FrameSession.PROOF_BYTES];
        in.readBytes(proof);
        if (!session.peerProofMatches(proof)) {
            refuse(ctx, "a handshake whose proof does not match the overlay secret");
            in.skipBytes(in.readableBytes());
            return;
        }
        done = true;
        timeout.cancel(false);
        admission.leave();
        admitted = false;
        Channel channel = ctx.channel();
        channel.attr(SESSION).set(session);
        channel.config().setRecvByteBufAllocator(new AdaptiveRecvByteBufAllocator());
        // Removing a ByteToMessageDecoder passes what it still holds (frames sent right
        // after the proof) on to the length framing behind it.
        ctx.pipeline().remove(this);
        promiseOf(channel).trySuccess(channel);
    }

    private void refuse(ChannelHandlerContext ctx, String why) {
        if (done) {
            return;
        }
        done = true;
        refusals.refused(ctx.channel().remoteAddress(), why);
        ctx.close();
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        release(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        release(ctx);
        super.channelInactive(ctx);
    }

    private void release(ChannelHandlerContext ctx) {
        if (admitted) {
            admitted = false;
            admission.leave();
        }
        if (timeout != null) {
            timeout.cancel(false);
        }
        promiseOf(ctx.channel()).tryFailure(new OverlayException(OverlayException.Reason.UNREACHABLE,
                "the overlay connection closed before its handshake completed"));
    }
}
