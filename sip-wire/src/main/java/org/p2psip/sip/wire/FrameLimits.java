package org.p2psip.sip.wire;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Optional;

/**
 * Size rules for incoming messages, shared by the datagram and stream
 * framers, and the salvage of a message too large to take in: its header
 * section, or as many whole header lines as arrived, parsed far enough to
 * answer it (RFC 3261 §21.5.14 513 Message Too Large; §21.4.1 400 for a
 * header line no server keeps). A message whose first header lines are not
 * there cannot be answered and is only dropped.
 */
public final class FrameLimits {

    /**
     * The longest header line accepted. No SIP header a phone or proxy
     * writes comes near it (a long Route set or a digest Authorization is
     * a few hundred bytes); parsing a multi-kilobyte line is the point of
     * the attack. Web servers draw the same line at 8 KB.
     */
    public static final int MAX_HEADER_LINE_BYTES = 8_192;

    private FrameLimits() {
    }

    /** Offset of the first line in {@code b[from, to)} longer than {@link #MAX_HEADER_LINE_BYTES}, or -1. */
    public static int overlongLine(byte[] b, int from, int to) {
        int lineStart = from;
        for (int i = from; i < to; i++) {
            if (b[i] == '\n') {
                if (i - lineStart > MAX_HEADER_LINE_BYTES) {
                    return lineStart;
                }
                lineStart = i + 1;
            }
        }
        return to - lineStart > MAX_HEADER_LINE_BYTES ? lineStart : -1;
    }

    /**
     * The head of a message cut short at {@code length} bytes, parsed:
     * up to the empty line if it is there, else up to the last whole
     * header line with an empty line put after it. Empty when that is not
     * a SIP request (or response) with the headers a response needs.
     */
    public static Optional<SipMessage> head(byte[] b, int length, InetSocketAddress sender, Transport transport,
                                     long connection) {
        int end = headerEnd(b, 0, length);
        byte[] head;
        if (end >= 0) {
            head = Arrays.copyOf(b, end);
        } else {
            int lastLf = -1;
            for (int i = length - 1; i >= 0; i--) {
                // A line followed by white space continues on the next (RFC 3261 §7.3.1): not whole yet.
                if (b[i] == '\n' && i + 1 < length && b[i + 1] != ' ' && b[i + 1] != '\t') {
                    lastLf = i;
                    break;
                }
            }
            if (lastLf < 0) {
                return Optional.empty();
            }
            head = Arrays.copyOf(b, lastLf + 3);
            head[lastLf + 1] = '\r';
            head[lastLf + 2] = '\n';
        }
        try {
            return Optional.of(SipParser.parseHead(new SipFrame(head, sender, transport, connection)));
        } catch (MalformedSipException e) {
            return Optional.empty();
        }
    }

    /** Offset just past the empty line ending the headers within {@code b[from, to)}, or -1. */
    public static int headerEnd(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != '\n') {
                continue;
            }
            if (i + 1 < to && b[i + 1] == '\n') {
                return i + 2;
            }
            if (i + 2 < to && b[i + 1] == '\r' && b[i + 2] == '\n') {
                return i + 3;
            }
        }
        return -1;
    }
}
