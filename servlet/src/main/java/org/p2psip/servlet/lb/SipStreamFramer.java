package org.p2psip.servlet.lb;

import java.net.InetSocketAddress;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * TCP framing (RFC 3261 §18.3): a message is its header section up to the
 * empty line plus Content-Length bytes of body, and Content-Length is
 * mandatory on a stream. CRLFs between messages are keep-alives (§7.5,
 * RFC 5626 §3.5.1) and are skipped. A stream that cannot be framed — no
 * Content-Length, a bad or repeated one, or a message larger than the
 * limit — cannot be resynchronised, so the connection is closed and
 * counted; nothing from it after the break is forwarded.
 */
public final class SipStreamFramer extends ByteToMessageDecoder {

    private final int maxMessageBytes;
    private final BalancerCounters counters;
    private boolean broken;

    public SipStreamFramer(int maxMessageBytes, BalancerCounters counters) {
        this.maxMessageBytes = maxMessageBytes;
        this.counters = counters;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (broken) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.isReadable() && (in.getByte(in.readerIndex()) == '\r' || in.getByte(in.readerIndex()) == '\n')) {
            in.skipBytes(1);
        }
        if (!in.isReadable()) {
            return;
        }
        int start = in.readerIndex();
        int available = in.readableBytes();
        int headerEnd = headerEnd(in, start, Math.min(available, maxMessageBytes));
        if (headerEnd < 0) {
            if (available >= maxMessageBytes) {
                fail(ctx, in, "no end of headers within " + maxMessageBytes + " bytes");
            }
            return;
        }
        byte[] header = new byte[headerEnd - start];
        in.getBytes(start, header);
        long contentLength;
        try {
            contentLength = SipParser.contentLength(header, header.length);
        } catch (MalformedSipException e) {
            fail(ctx, in, e.getMessage());
            return;
        }
        if (contentLength < 0) {
            fail(ctx, in, "no Content-Length on a stream");
            return;
        }
        long total = header.length + contentLength;
        if (total > maxMessageBytes) {
            fail(ctx, in, "message of " + total + " bytes exceeds " + maxMessageBytes);
            return;
        }
        if (available < total) {
            return;
        }
        byte[] message = new byte[(int) total];
        in.readBytes(message);
        Long id = ctx.channel().attr(TcpConnections.ID).get();
        out.add(new SipFrame(message, (InetSocketAddress) ctx.channel().remoteAddress(), Transport.TCP,
                id == null ? 0 : id));
    }

    /** Offset just past the empty line ending the headers within {@code [start, limit)}, or -1. */
    private static int headerEnd(ByteBuf in, int start, int length) {
        int end = start + length;
        for (int i = start; i < end; i++) {
            if (in.getByte(i) != '\n') {
                continue;
            }
            if (i + 1 < end && in.getByte(i + 1) == '\n') {
                return i + 2;
            }
            if (i + 2 < end && in.getByte(i + 1) == '\r' && in.getByte(i + 2) == '\n') {
                return i + 3;
            }
        }
        return -1;
    }

    private void fail(ChannelHandlerContext ctx, ByteBuf in, String why) {
        broken = true;
        in.skipBytes(in.readableBytes());
        counters.countStreamClosed();
        ctx.close();
    }
}
