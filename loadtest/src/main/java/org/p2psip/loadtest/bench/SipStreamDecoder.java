package org.p2psip.loadtest.bench;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;

/**
 * Cuts a TCP byte stream into SIP messages: the header block ends at the
 * first blank line and Content-Length, mandatory over streams (RFC 3261
 * §18.3, §20.14), says how many body bytes follow. CRLFs between messages
 * (keep-alives, RFC 5626 §4.4.1) are skipped. A header block larger than
 * {@link #MAX_HEADER} or without Content-Length is a framing error: the
 * stream cannot be resynchronised, so the connection is closed.
 */
public final class SipStreamDecoder extends ByteToMessageDecoder {

    static final int MAX_HEADER = 16 * 1024;
    static final int MAX_BODY = 64 * 1024;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.isReadable() && (in.getByte(in.readerIndex()) == '\r' || in.getByte(in.readerIndex()) == '\n')) {
            in.skipBytes(1);
        }
        int start = in.readerIndex();
        int end = in.writerIndex();
        int blank = -1;
        for (int i = start; i + 3 < end; i++) {
            if (in.getByte(i) == '\r' && in.getByte(i + 1) == '\n' && in.getByte(i + 2) == '\r' && in.getByte(i + 3) == '\n') {
                blank = i;
                break;
            }
        }
        if (blank < 0) {
            if (end - start > MAX_HEADER) {
                throw new CorruptedFrameException("SIP header block longer than " + MAX_HEADER + " bytes");
            }
            return;
        }
        String head = in.toString(start, blank - start, StandardCharsets.ISO_8859_1);
        int length = contentLength(head);
        int total = blank + 4 - start + length;
        if (in.readableBytes() < total) {
            return;
        }
        byte[] bytes = ByteBufUtil.getBytes(in, start, total);
        in.skipBytes(total);
        try {
            InetSocketAddress peer = ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a : null;
            out.add(new Inbound(SipMessage.parse(bytes), peer));
        } catch (IllegalArgumentException e) {
            // The frame was intact, only its content is unusable: drop it and keep the stream.
        }
    }

    static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            if (name.equals("content-length") || name.equals("l")) {
                int n;
                try {
                    n = Integer.parseInt(line.substring(colon + 1).trim());
                } catch (NumberFormatException e) {
                    throw new CorruptedFrameException("bad Content-Length: " + line);
                }
                if (n < 0 || n > MAX_BODY) {
                    throw new CorruptedFrameException("Content-Length out of range: " + n);
                }
                return n;
            }
        }
        throw new CorruptedFrameException("no Content-Length on a stream transport");
    }
}
