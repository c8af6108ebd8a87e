package org.p2psip.servlet.stack;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.regex.Pattern;

import org.p2psip.core.guard.SourceVerdict;
import org.p2psip.servlet.lb.MalformedSipException;
import org.p2psip.servlet.lb.SipFrame;
import org.p2psip.servlet.lb.SipMessage;
import org.p2psip.servlet.lb.SipParser;
import org.p2psip.servlet.lb.StatelessResponses;
import org.p2psip.servlet.lb.Transport;

import gov.nist.javax.sip.stack.NioTcpMessageChannel;
import gov.nist.javax.sip.stack.NioTcpMessageProcessor;

/**
 * The RI's channel for a connection a peer opened to the node, with the
 * stream framed by a {@link SipStreamAssembler} before the RI parses it:
 * every message counts against its source's rate, a message over the size
 * limit gets 513 Message Too Large (RFC 3261 §21.5.14) and one that cannot be
 * framed 400, and then the connection is closed, since the stream cannot be
 * resynchronised. Idle and slow connections are closed by the
 * {@link ConnectionGuard}.
 */
final class GuardedTcpChannel extends NioTcpMessageChannel {

    private static final Pattern CONTENT_LENGTH = Pattern.compile("(?im)^(content-length|l)[ \\t]*:[^\\n]*\\n");

    private final ConnectionGuard guard;
    private final EdgeGuards guards;
    private final SipStreamAssembler assembler;
    private final InetAddress source;
    private final boolean admitted;
    private volatile long lastActivityNanos = System.nanoTime();
    private volatile long partialSince;

    GuardedTcpChannel(NioTcpMessageProcessor processor, SocketChannel socket, ConnectionGuard guard, EdgeGuards guards)
            throws IOException {
        super(processor, socket);
        this.messageProcessor = processor;
        this.guard = guard;
        this.guards = guards;
        this.assembler = new SipStreamAssembler(guards.maxMessageBytes());
        this.source = socket.socket().getInetAddress();
        this.admitted = guard.admit(source);
        if (admitted) {
            guard.opened(this);
        } else {
            guard.closeSoon(this);
        }
    }

    long lastActivityNanos() {
        return lastActivityNanos;
    }

    /** When the message now arriving began to arrive, or 0 between messages. */
    long partialSince() {
        return partialSince;
    }

    @Override
    protected void addBytes(byte[] bytes) throws Exception {
        if (!admitted || assembler.ended()) {
            return;
        }
        long now = System.nanoTime();
        lastActivityNanos = now;
        for (SipStreamAssembler.Piece piece : assembler.feed(bytes)) {
            if (piece instanceof SipStreamAssembler.Piece.KeepAlive k) {
                super.addBytes(k.bytes());
            } else if (piece instanceof SipStreamAssembler.Piece.Message m) {
                if (guards.sources().admit(source, now) != SourceVerdict.ADMIT) {
                    guard.closeSoon(this);
                    return;
                }
                super.addBytes(m.bytes());
            } else if (piece instanceof SipStreamAssembler.Piece.TooLarge t) {
                guards.countOversized();
                refuse(t.head(), 513, "Message Too Large");
                return;
            } else if (piece instanceof SipStreamAssembler.Piece.Malformed m) {
                refuse(m.head(), 400, m.reason());
                return;
            }
        }
        partialSince = assembler.partial() ? (partialSince == 0 ? now : partialSince) : 0;
    }

    /** Answers what can be answered of {@code head}, then closes: the rest of the stream is unframeable. */
    private void refuse(byte[] head, int status, String reason) {
        byte[] answer = answer(head, status, reason);
        if (answer != null) {
            try {
                // Written here, on the selector thread, rather than queued
                // like the RI's sends: the close that follows would beat a
                // queued write. A few hundred bytes fit any socket buffer.
                socketChannel.write(ByteBuffer.wrap(answer));
            } catch (IOException e) {
                // The peer is gone; closing is all that is left.
            }
        }
        guard.closeSoon(this);
    }

    private byte[] answer(byte[] head, int status, String reason) {
        int end = SipStreamAssembler.headerEnd(head, 0, head.length);
        byte[] headers = withoutContentLength(end > 0 ? Arrays.copyOf(head, end) : completeLines(head));
        try {
            // Parsed as a datagram would be: only the header section is at hand, not the body it announces.
            SipMessage request = SipParser.parse(new SipFrame(headers,
                    new InetSocketAddress(source, getPeerPort()), Transport.UDP, 0));
            if (!request.request() || request.isAck()) {
                return null;
            }
            String tag = "p2psip-" + Integer.toHexString((request.callId() + "/" + request.cseqNumber()).hashCode());
            return StatelessResponses.build(request, status, reason, tag, "p2psip");
        } catch (MalformedSipException | RuntimeException e) {
            return null;
        }
    }

    private static byte[] withoutContentLength(byte[] headers) {
        String text = new String(headers, StandardCharsets.ISO_8859_1);
        return CONTENT_LENGTH.matcher(text).replaceAll("").getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The whole lines of a cut header section, ended as if the section ended there. */
    private static byte[] completeLines(byte[] head) {
        int last = head.length - 1;
        while (last >= 0 && head[last] != '\n') {
            last--;
        }
        if (last < 0) {
            return new byte[0];
        }
        byte[] out = Arrays.copyOf(head, last + 3);
        out[last + 1] = '\r';
        out[last + 2] = '\n';
        return out;
    }

    @Override
    protected void close(boolean removeSocket, boolean stopKeepAliveTask) {
        guard.release(this, source);
        super.close(removeSocket, stopKeepAliveTask);
    }
}
