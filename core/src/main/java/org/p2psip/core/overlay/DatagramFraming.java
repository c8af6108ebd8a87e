package org.p2psip.core.overlay;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.concurrent.PromiseCombiner;

/**
 * The datagram end of the UDP overlay pipeline: a signed frame becomes one or
 * more datagrams (a frame larger than one datagram is split, because a value
 * may exceed UDP's 64 KiB), and datagrams are reassembled into the signed
 * frame the {@link DatagramAuthenticator} above expects. Each fragment carries
 * {@code frameId(8) index(2) count(2)}; fragments of a frame that is not
 * complete within {@code reassemblyNanos} are discarded, which the
 * requester sees as a lost datagram and retries.
 *
 * <p>The peer address travels beside the frame in {@link DatagramRoute}:
 * the handlers above it work on whole frames and know nothing of addresses.
 * All of this runs on the channel's single event loop, so the maps need no
 * locks.
 */
final class DatagramFraming extends ChannelDuplexHandler {

    static final int FRAGMENT_HEADER_BYTES = 8 + 2 + 2;

    private record FrameKey(InetSocketAddress sender, long frameId) {
    }

    private static final class Partial {
        final ByteBuf[] parts;
        final long startedNanos;
        int received;
        int bytes;

        Partial(int count, long startedNanos) {
            this.parts = new ByteBuf[count];
            this.startedNanos = startedNanos;
        }
    }

    private final DatagramRoute route;
    private final int fragmentPayloadBytes;
    private final int maxFrameBytes;
    private final long reassemblyNanos;
    private final Map<FrameKey, Partial> partials = new HashMap<>();

    DatagramFraming(DatagramRoute route, int fragmentPayloadBytes, int maxFrameBytes, long reassemblyNanos) {
        this.route = route;
        this.fragmentPayloadBytes = fragmentPayloadBytes;
        this.maxFrameBytes = maxFrameBytes;
        this.reassemblyNanos = reassemblyNanos;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof DatagramPacket packet)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            ByteBuf in = packet.content();
            if (in.readableBytes() < FRAGMENT_HEADER_BYTES) {
                return;
            }
            long frameId = in.readLong();
            int index = in.readUnsignedShort();
            int count = in.readUnsignedShort();
            if (count == 0 || index >= count || (long) count * fragmentPayloadBytes > maxFrameBytes
                    + (long) fragmentPayloadBytes) {
                return;
            }
            InetSocketAddress sender = packet.sender();
            if (count == 1) {
                deliver(ctx, sender, in.retainedSlice());
                return;
            }
            long now = System.nanoTime();
            dropStale(now);
            FrameKey key = new FrameKey(sender, frameId);
            Partial partial = partials.computeIfAbsent(key, k -> new Partial(count, now));
            if (partial.parts.length != count || partial.parts[index] != null) {
                return;
            }
            partial.parts[index] = in.retainedSlice();
            partial.received++;
            partial.bytes += in.readableBytes();
            if (partial.bytes > maxFrameBytes) {
                release(partials.remove(key));
                return;
            }
            if (partial.received == count) {
                partials.remove(key);
                CompositeByteBuf whole = ctx.alloc().compositeBuffer(count);
                whole.addComponents(true, partial.parts);
                deliver(ctx, sender, whole);
            }
        } finally {
            packet.release();
        }
    }

    private void deliver(ChannelHandlerContext ctx, InetSocketAddress sender, ByteBuf frame) {
        // Everything above runs synchronously inside this call, so the sender is current for it.
        route.inboundSender = sender;
        try {
            ctx.fireChannelRead(frame);
        } finally {
            route.inboundSender = null;
        }
    }

    private void dropStale(long now) {
        Iterator<Partial> it = partials.values().iterator();
        while (it.hasNext()) {
            Partial p = it.next();
            if (now - p.startedNanos > reassemblyNanos) {
                it.remove();
                release(p);
            }
        }
    }

    private static void release(Partial p) {
        if (p == null) {
            return;
        }
        for (ByteBuf b : p.parts) {
            if (b != null) {
                b.release();
            }
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf frame)) {
            ctx.write(msg, promise);
            return;
        }
        InetSocketAddress to = route.outboundPeer;
        if (to == null) {
            frame.release();
            promise.setFailure(new IllegalStateException("a datagram frame without a destination"));
            return;
        }
        try {
            int total = frame.readableBytes();
            int count = Math.max(1, (total + fragmentPayloadBytes - 1) / fragmentPayloadBytes);
            long frameId = ThreadLocalRandom.current().nextLong();
            PromiseCombiner combiner = new PromiseCombiner(ctx.executor());
            for (int i = 0; i < count; i++) {
                int from = i * fragmentPayloadBytes;
                int length = Math.min(fragmentPayloadBytes, total - from);
                ByteBuf out = ctx.alloc().buffer(FRAGMENT_HEADER_BYTES + length);
                out.writeLong(frameId).writeShort(i).writeShort(count)
                        .writeBytes(frame, frame.readerIndex() + from, length);
                combiner.add(ctx.write(new DatagramPacket(out, to)));
            }
            combiner.finish(promise);
        } finally {
            frame.release();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        partials.values().forEach(DatagramFraming::release);
        partials.clear();
        super.channelInactive(ctx);
    }
}
