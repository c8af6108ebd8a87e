package org.p2psip.core.overlay;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sits between {@link OverlayFrameCodec} and {@link OverlayDispatcher} in the
 * UDP pipeline and gives every frame its peer: a request goes to the address
 * its sender named, an answer back to the address its request came from.
 *
 * <p>It also makes retransmission safe. A requester that hears nothing
 * resends the same frame with the same id, so a request may arrive twice; a
 * conditional write must not run twice. A duplicate of a request still being
 * served is dropped, and a duplicate of one already answered gets the cached
 * answer again ("at most once" execution, kept for {@code answerCacheNanos}).
 * Request ids are random 64-bit numbers, so ids from different senders do
 * not collide in practice.
 */
final class DatagramAddressing extends ChannelDuplexHandler {

    private static final Logger LOG = LoggerFactory.getLogger(DatagramAddressing.class);

    private record Answered(InetSocketAddress requester, OverlayFrame answer, long atNanos) {
    }

    private static final int MAX_CACHED_ANSWER_BYTES = 16 * 1024;

    private final DatagramRoute route;
    private final Function<Long, InetSocketAddress> requestDestination;
    private final long answerCacheNanos;
    private final int maxCachedAnswers;
    private final Map<Long, InetSocketAddress> serving = new HashMap<>();
    private final LinkedHashMap<Long, Answered> answered = new LinkedHashMap<>();

    DatagramAddressing(DatagramRoute route, Function<Long, InetSocketAddress> requestDestination,
                       long answerCacheNanos, int maxCachedAnswers) {
        this.route = route;
        this.requestDestination = requestDestination;
        this.answerCacheNanos = answerCacheNanos;
        this.maxCachedAnswers = maxCachedAnswers;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof OverlayFrame frame) || frame.kind() != OverlayFrame.Kind.REQUEST) {
            ctx.fireChannelRead(msg);
            return;
        }
        InetSocketAddress sender = route.inboundSender;
        if (sender == null) {
            return;
        }
        long id = frame.requestId();
        if (serving.containsKey(id)) {
            return;
        }
        Answered done = answered.get(id);
        if (done != null && done.requester().equals(sender)) {
            send(ctx, done.answer(), sender, ctx.newPromise());
            ctx.flush();
            return;
        }
        serving.put(id, sender);
        ctx.fireChannelRead(frame);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof OverlayFrame frame)) {
            ctx.write(msg, promise);
            return;
        }
        InetSocketAddress to;
        if (frame.kind() == OverlayFrame.Kind.REQUEST) {
            to = requestDestination.apply(frame.requestId());
        } else {
            to = serving.remove(frame.requestId());
            if (to != null && frame.payload().length <= MAX_CACHED_ANSWER_BYTES) {
                // Big answers are reads; running a duplicate read again is harmless.
                remember(frame, to);
            }
        }
        if (to == null) {
            // The request was answered already, or given up on by the requester: nothing to send.
            promise.trySuccess();
            return;
        }
        send(ctx, frame, to, promise);
    }

    private void send(ChannelHandlerContext ctx, OverlayFrame frame, InetSocketAddress to, ChannelPromise promise) {
        // Codec, signer and fragmenter below run synchronously inside this write, so the route holds.
        route.outboundPeer = to;
        try {
            ctx.write(frame, promise);
        } finally {
            route.outboundPeer = null;
        }
    }

    /**
     * One socket serves every peer, so a bad datagram must never close it
     * (the dispatcher after this would): log and carry on.
     */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("ignoring a bad overlay datagram: {}", cause.toString());
    }

    private void remember(OverlayFrame answer, InetSocketAddress requester) {
        long now = System.nanoTime();
        answered.put(answer.requestId(), new Answered(requester, answer, now));
        Iterator<Answered> oldest = answered.values().iterator();
        while (oldest.hasNext()) {
            Answered a = oldest.next();
            if (answered.size() <= maxCachedAnswers && now - a.atNanos() <= answerCacheNanos) {
                break;
            }
            oldest.remove();
        }
    }
}
