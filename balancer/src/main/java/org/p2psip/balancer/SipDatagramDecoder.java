package org.p2psip.balancer;

import org.p2psip.sip.wire.FrameLimits;
import org.p2psip.sip.wire.SipFrame;
import org.p2psip.sip.wire.SipMessage;
import org.p2psip.sip.wire.Transport;

import java.util.List;
import java.util.Optional;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.DatagramPacket;
import io.netty.handler.codec.MessageToMessageDecoder;

/**
 * UDP framing: one datagram is one message (RFC 3261 §18.3). Datagrams of
 * nothing but CR and LF are keep-alives (RFC 5626 §3.5.1 style) and vanish
 * silently; everything else becomes a {@link SipFrame} for the parser.
 *
 * <p>A datagram larger than the message size limit, or with a header line
 * longer than {@link FrameLimits#MAX_HEADER_LINE_BYTES}, is not passed on:
 * a request gets 513 Message Too Large (§21.5.14, §18.1.1) or 400, sent
 * where its response would go, and anything else is dropped and counted.
 * The answer is smaller than the datagram, so even a spoofed source gains
 * nothing by it.
 */
public final class SipDatagramDecoder extends MessageToMessageDecoder<DatagramPacket> {

    private final int maxMessageBytes;
    private final LocalAnswers answers;
    private final BalancerCounters counters;
    private final BadInputReporter bad;

    SipDatagramDecoder(int maxMessageBytes, LocalAnswers answers, BalancerCounters counters, BadInputReporter bad) {
        this.maxMessageBytes = maxMessageBytes;
        this.answers = answers;
        this.counters = counters;
        this.bad = bad;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, DatagramPacket packet, List<Object> out) {
        ByteBuf content = packet.content();
        int from = content.readerIndex();
        int to = content.writerIndex();
        int i = from;
        while (i < to && (content.getByte(i) == '\r' || content.getByte(i) == '\n')) {
            i++;
        }
        if (i == to) {
            return;
        }
        byte[] bytes = ByteBufUtil.getBytes(content);
        if (bytes.length > maxMessageBytes) {
            refuse(ctx, packet, bytes, 513, "Message Too Large",
                    "datagram of " + bytes.length + " bytes exceeds " + maxMessageBytes);
            return;
        }
        int headerEnd = FrameLimits.headerEnd(bytes, 0, bytes.length);
        if (FrameLimits.overlongLine(bytes, 0, headerEnd < 0 ? bytes.length : headerEnd) >= 0) {
            refuse(ctx, packet, bytes, 400, "Header Line Too Long",
                    "a header line longer than " + FrameLimits.MAX_HEADER_LINE_BYTES + " bytes");
            return;
        }
        out.add(new SipFrame(bytes, packet.sender(), Transport.UDP, 0));
    }

    private void refuse(ChannelHandlerContext ctx, DatagramPacket packet, byte[] bytes, int status, String reason,
                        String why) {
        counters.countRefusedOversized();
        bad.report(packet.sender(), why, bytes, bytes.length);
        Optional<SipMessage> head = FrameLimits.head(bytes, bytes.length, packet.sender(), Transport.UDP, 0);
        if (head.isEmpty() || !LocalAnswers.answerable(head.get())) {
            return;
        }
        SipMessage m = head.get();
        counters.countAnsweredLocally();
        ctx.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(answers.build(m, status, reason)),
                SipRouter.returnAddress(m).address()), ctx.voidPromise());
    }
}
