package org.p2psip.servlet.stack;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;

import org.p2psip.core.guard.SourceVerdict;
import org.p2psip.sip.wire.MalformedSipException;
import org.p2psip.sip.wire.SipFrame;
import org.p2psip.sip.wire.SipMessage;
import org.p2psip.sip.wire.SipParser;
import org.p2psip.sip.wire.Transport;

/**
 * The defences of one connection a peer opened to the node, whatever
 * carries it (TCP, or TLS once decrypted): the stream is framed by a
 * {@link SipStreamAssembler} before the RI parses it, every message counts
 * against its source's rate and, if it is a request that can only be
 * challenged, against the node's budget for those from all sources (over it,
 * it is dropped unanswered, as on UDP), a message over the size limit gets 513 Message
 * Too Large (RFC 3261 §21.5.14) and one that cannot be framed 400, and then
 * the connection is closed, since the stream cannot be resynchronised. The
 * {@link ConnectionGuard} closes idle and slow connections by the times
 * kept here.
 */
final class StreamGuard {

    /** Where a connection's plaintext goes: the RI's parser, and the wire for a refusal. */
    interface Connection {
        void parse(byte[] bytes) throws Exception;

        /** Writes {@code answer} and closes; how depends on whether the bytes must be encrypted first. */
        void refuse(byte[] answer);

        void close();
    }

    private final ConnectionGuard guard;
    private final EdgeGuards guards;
    private final SipStreamAssembler assembler;
    private final InetAddress source;
    private final int port;
    private boolean admitted;
    private final long openedNanos = System.nanoTime();
    private volatile long lastActivityNanos = openedNanos;
    private volatile long partialSince;
    private volatile boolean spoke;

    StreamGuard(ConnectionGuard guard, EdgeGuards guards, InetAddress source, int port) {
        this.guard = guard;
        this.guards = guards;
        this.assembler = new SipStreamAssembler(guards.maxMessageBytes());
        this.source = source;
        this.port = port;
    }

    /** Claims the connection's place; a refused one is closed right after the RI registered it. */
    void open(Connection connection) {
        admitted = guard.admit(source);
        if (admitted) {
            guard.opened(this, connection);
        } else {
            guard.closeSoon(connection);
        }
    }

    boolean admitted() {
        return admitted;
    }

    /** Any bytes from the peer, encrypted or not: the connection is not idle. */
    void touched() {
        lastActivityNanos = System.nanoTime();
    }

    long lastActivityNanos() {
        return lastActivityNanos;
    }

    /** When the connection was accepted. */
    long openedNanos() {
        return openedNanos;
    }

    /** Whether a whole message has arrived on it: a connection that has not may be closed to make room. */
    boolean spoke() {
        return spoke;
    }

    InetAddress source() {
        return source;
    }

    /** When the message now arriving began to arrive, or 0 between messages. */
    long partialSince() {
        return partialSince;
    }

    /** Frames plaintext from the peer and hands whole messages on. */
    void feed(byte[] bytes, Connection connection) throws Exception {
        if (!admitted || assembler.ended()) {
            return;
        }
        long now = System.nanoTime();
        lastActivityNanos = now;
        for (SipStreamAssembler.Piece piece : assembler.feed(bytes)) {
            if (piece instanceof SipStreamAssembler.Piece.KeepAlive k) {
                connection.parse(k.bytes());
            } else if (piece instanceof SipStreamAssembler.Piece.Message m) {
                if (guards.sources().admit(source, now) != SourceVerdict.ADMIT) {
                    guard.closeSoon(connection);
                    return;
                }
                if (!guards.withinCredentialFreeBudget(m.bytes(), m.bytes().length, now)) {
                    // Dropped unanswered, as a datagram would be; the connection has not spoken for it, so it
                    // may still be closed to make room.
                    continue;
                }
                if (!spoke) {
                    spoke = true;
                    guard.spoke(this);
                }
                connection.parse(m.bytes());
            } else if (piece instanceof SipStreamAssembler.Piece.TooLarge t) {
                guards.countOversized();
                refuse(connection, t.head(), 513, "Message Too Large");
                return;
            } else if (piece instanceof SipStreamAssembler.Piece.Malformed m) {
                refuse(connection, m.head(), 400, m.reason());
                return;
            }
        }
        partialSince = assembler.partial() ? (partialSince == 0 ? now : partialSince) : 0;
    }

    /** Gives the connection's place back; called once it closes. */
    void closed() {
        guard.release(this, source);
    }

    private void refuse(Connection connection, byte[] head, int status, String reason) {
        byte[] answer = answer(head, status, reason);
        if (answer == null) {
            guard.closeSoon(connection);
        } else {
            connection.refuse(answer);
        }
    }

    private byte[] answer(byte[] head, int status, String reason) {
        int end = SipStreamAssembler.headerEnd(head, 0, head.length);
        byte[] headers = end > 0 ? Arrays.copyOf(head, end) : completeLines(head);
        try {
            // Only the header section is at hand, not the body it announces.
            SipMessage request = SipParser.parseHead(new SipFrame(headers, new InetSocketAddress(source, port),
                    Transport.TCP, 0));
            return StatelessAnswers.to(request, status, reason);
        } catch (MalformedSipException | RuntimeException e) {
            return null;
        }
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

    /** For the refusal of a plain TCP connection: written at once, then closed. */
    static void writeThenClose(java.nio.channels.SocketChannel socket, byte[] answer, ConnectionGuard guard,
                               Connection connection) {
        try {
            // Written here, on the selector thread, rather than queued like
            // the RI's sends: the close that follows would beat a queued
            // write. A few hundred bytes fit any socket buffer.
            socket.write(java.nio.ByteBuffer.wrap(answer));
        } catch (IOException e) {
            // The peer is gone; closing is all that is left.
        }
        guard.closeSoon(connection);
    }
}
