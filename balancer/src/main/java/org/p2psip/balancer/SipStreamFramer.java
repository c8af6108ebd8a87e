package org.p2psip.balancer;

import org.p2psip.sip.wire.FrameLimits;
import org.p2psip.sip.wire.MalformedSipException;
import org.p2psip.sip.wire.SipFrame;
import org.p2psip.sip.wire.SipMessage;
import org.p2psip.sip.wire.SipParser;
import org.p2psip.sip.wire.Transport;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.ScheduledFuture;

/**
 * Stream framing for TCP and TLS (RFC 3261 §18.3): a message is its header
 * section up to the empty line plus Content-Length bytes of body, and
 * Content-Length is mandatory on a stream.
 *
 * <p>Between messages, CR and LF are keep-alives (§7.5). A double CRLF is
 * RFC 5626 §4.4.1's ping and is answered with a single CRLF pong, so a
 * client behind a NAT can tell the flow is alive.
 *
 * <p>A stream cannot be resynchronised after a framing error, so every
 * error ends the connection, and nothing after the break is forwarded:
 * no or a bad Content-Length is closed at once; a message over the size
 * limit — a header section that does not end within it, or a declared body
 * that would pass it — gets 513 Message Too Large (§21.5.14), and a header
 * line longer than {@link FrameLimits#MAX_HEADER_LINE_BYTES} gets 400,
 * when enough header lines arrived to answer, and the connection is closed
 * once the answer is written.
 *
 * <p>A message must arrive whole within the deadline from its first byte;
 * a connection that trickles one (slowloris, or a Content-Length larger
 * than what is sent) is closed at the deadline. So is a connection whose
 * first message is not whole within the deadline from the connection's
 * start: keep-alives do not count, and a client that connects only to
 * hold a place is gone before the places run out. The first whole message
 * is reported ({@code onFirstMessage}), for {@link ConnectionGate} to stop
 * counting the connection among those it may close to make room.
 */
public final class SipStreamFramer extends ByteToMessageDecoder {

    private static final byte[] PING = {'\r', '\n', '\r', '\n'};

    private final int maxMessageBytes;
    private final long deadlineNanos;
    private final Transport transport;
    private final LocalAnswers answers;
    private final BalancerCounters counters;
    private final BadInputReporter bad;
    private boolean broken;
    /** How much of a CRLFCRLF ping has been seen between messages. */
    private int pingMatched;
    private ScheduledFuture<?> deadline;
    private ScheduledFuture<?> firstDeadline;
    private boolean spoke;
    private final Consumer<Channel> onFirstMessage;

    SipStreamFramer(int maxMessageBytes, long deadlineNanos, Transport transport, LocalAnswers answers,
                    BalancerCounters counters, BadInputReporter bad, Consumer<Channel> onFirstMessage) {
        if (!transport.stream()) {
            throw new IllegalArgumentException("stream framing is for TCP and TLS");
        }
        this.maxMessageBytes = maxMessageBytes;
        this.deadlineNanos = deadlineNanos;
        this.transport = transport;
        this.answers = answers;
        this.counters = counters;
        this.bad = bad;
        this.onFirstMessage = onFirstMessage;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        firstDeadline = ctx.executor().schedule(() -> silentTooLong(ctx), deadlineNanos, TimeUnit.NANOSECONDS);
        super.channelActive(ctx);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (broken) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (true) {
            skipKeepAlives(ctx, in);
            if (!in.isReadable()) {
                cancelDeadline();
                return;
            }
            if (deadline == null) {
                deadline = ctx.executor().schedule(() -> pastDeadline(ctx), deadlineNanos, TimeUnit.NANOSECONDS);
            }
            SipFrame frame = frame(ctx, in);
            if (frame == null) {
                return;
            }
            cancelDeadline();
            if (!spoke) {
                spoke = true;
                cancelFirstDeadline();
                onFirstMessage.accept(ctx.channel());
            }
            out.add(frame);
        }
    }

    /** The next whole message, or null when it has not all arrived yet or the stream broke. */
    private SipFrame frame(ChannelHandlerContext ctx, ByteBuf in) {
        int start = in.readerIndex();
        int available = in.readableBytes();
        int window = Math.min(available, maxMessageBytes);
        int headerEnd = headerEnd(in, start, window);
        if (headerEnd < 0) {
            byte[] seen = ByteBufUtil.getBytes(in, start, window);
            if (FrameLimits.overlongLine(seen, 0, seen.length) >= 0) {
                refuse(ctx, in, seen, 400, "Header Line Too Long",
                        "a header line longer than " + FrameLimits.MAX_HEADER_LINE_BYTES + " bytes");
            } else if (available >= maxMessageBytes) {
                refuse(ctx, in, seen, 513, "Message Too Large", "no end of headers within " + maxMessageBytes
                        + " bytes");
            }
            return null;
        }
        byte[] header = new byte[headerEnd - start];
        in.getBytes(start, header);
        if (FrameLimits.overlongLine(header, 0, header.length) >= 0) {
            refuse(ctx, in, header, 400, "Header Line Too Long",
                    "a header line longer than " + FrameLimits.MAX_HEADER_LINE_BYTES + " bytes");
            return null;
        }
        long contentLength;
        try {
            contentLength = SipParser.contentLength(header, header.length);
        } catch (MalformedSipException e) {
            fail(ctx, in, header, e.getMessage());
            return null;
        }
        if (contentLength < 0) {
            fail(ctx, in, header, "no Content-Length on a stream");
            return null;
        }
        long total = header.length + contentLength;
        if (total > maxMessageBytes) {
            refuse(ctx, in, header, 513, "Message Too Large", "message of " + total + " bytes exceeds "
                    + maxMessageBytes);
            return null;
        }
        if (available < total) {
            return null;
        }
        byte[] message = new byte[(int) total];
        in.readBytes(message);
        return new SipFrame(message, remote(ctx), transport, connectionId(ctx));
    }

    /** Skips CR and LF between messages, answering each complete CRLFCRLF ping with a CRLF pong. */
    private void skipKeepAlives(ChannelHandlerContext ctx, ByteBuf in) {
        while (in.isReadable()) {
            byte c = in.getByte(in.readerIndex());
            if (c != '\r' && c != '\n') {
                pingMatched = 0;
                return;
            }
            in.skipBytes(1);
            if (c == PING[pingMatched]) {
                pingMatched++;
            } else {
                pingMatched = c == '\r' ? 1 : 0;
            }
            if (pingMatched == PING.length) {
                pingMatched = 0;
                counters.countPong();
                ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {'\r', '\n'}), ctx.voidPromise());
            }
        }
    }

    /** Offset just past the empty line ending the headers within {@code [start, start + length)}, or -1. */
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

    /** Answers a request that broke a size limit if its head allows, then closes. */
    private void refuse(ChannelHandlerContext ctx, ByteBuf in, byte[] seen, int status, String reason, String why) {
        counters.countRefusedOversized();
        Optional<SipMessage> head = FrameLimits.head(seen, seen.length, remote(ctx), transport, connectionId(ctx));
        if (head.isEmpty() || !LocalAnswers.answerable(head.get())) {
            fail(ctx, in, seen, why);
            return;
        }
        broken = true;
        cancelDeadline();
        in.skipBytes(in.readableBytes());
        counters.countStreamClosed();
        counters.countAnsweredLocally();
        bad.report(remote(ctx), why, seen, seen.length);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(answers.build(head.get(), status, reason)))
                .addListener(ChannelFutureListener.CLOSE);
    }

    private void fail(ChannelHandlerContext ctx, ByteBuf in, byte[] seen, String why) {
        broken = true;
        cancelDeadline();
        in.skipBytes(in.readableBytes());
        counters.countStreamClosed();
        bad.report(remote(ctx), why + "; connection closed", seen, seen.length);
        ctx.close();
    }

    private void pastDeadline(ChannelHandlerContext ctx) {
        deadline = null;
        if (broken || !ctx.channel().isActive()) {
            return;
        }
        broken = true;
        counters.countDeadlineClosed();
        bad.report(remote(ctx), "a message did not arrive whole within "
                + TimeUnit.NANOSECONDS.toMillis(deadlineNanos) + " ms; connection closed");
        ctx.close();
    }

    private void silentTooLong(ChannelHandlerContext ctx) {
        firstDeadline = null;
        if (spoke || broken || !ctx.channel().isActive()) {
            return;
        }
        broken = true;
        counters.countDeadlineClosed();
        bad.report(remote(ctx), "no whole message within " + TimeUnit.NANOSECONDS.toMillis(deadlineNanos)
                + " ms of connecting; connection closed");
        ctx.close();
    }

    private void cancelFirstDeadline() {
        if (firstDeadline != null) {
            firstDeadline.cancel(false);
            firstDeadline = null;
        }
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        cancelDeadline();
        cancelFirstDeadline();
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        // The connection is gone: half a message can never be answered, and no deadline is needed.
        in.skipBytes(in.readableBytes());
        cancelDeadline();
        cancelFirstDeadline();
    }

    private static InetSocketAddress remote(ChannelHandlerContext ctx) {
        return (InetSocketAddress) ctx.channel().remoteAddress();
    }

    private static long connectionId(ChannelHandlerContext ctx) {
        Long id = ctx.channel().attr(TcpConnections.ID).get();
        return id == null ? 0 : id;
    }
}
