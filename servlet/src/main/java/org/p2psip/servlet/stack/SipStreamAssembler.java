package org.p2psip.servlet.stack;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Cuts a TCP byte stream into whole SIP messages before the RI's parser
 * sees them (RFC 3261 §18.3: the header section ends at the first empty
 * line, the body is Content-Length bytes long), so that size limits hold
 * before anything is allocated: the RI's pipeline parser allocates a body
 * of whatever Content-Length claims, and reads header lines of any length.
 *
 * <p>Keep-alive CRLFs between messages (RFC 5626 §4.4.1) pass through as
 * they are. A message whose header section or total size passes the limit
 * ends the stream with {@link Piece.TooLarge} carrying the head received so
 * far, to answer 513 from; an unusable Content-Length ends it with
 * {@link Piece.Malformed}. Not thread-safe: one per connection, fed by the
 * selector thread.
 */
final class SipStreamAssembler {

    /** What a feed produced, in stream order. */
    sealed interface Piece {
        /** One whole message, to parse. */
        record Message(byte[] bytes) implements Piece {
        }

        /** CR/LF bytes between messages: keep-alives. */
        record KeepAlive(byte[] bytes) implements Piece {
        }

        /** The message passes the size limit; {@code head} is what arrived of it (at most the limit). */
        record TooLarge(byte[] head) implements Piece {
        }

        /** The message cannot be framed; {@code head} holds its header section. */
        record Malformed(String reason, byte[] head) implements Piece {
        }
    }

    private final int maxMessageBytes;
    /** Empty until bytes wait for the rest of their message: an idle connection holds no buffer. */
    private byte[] buf = new byte[0];
    private int length;
    /** Where the search for the end of the pending header section resumes: earlier bytes hold none. */
    private int scanned;
    private boolean ended;

    SipStreamAssembler(int maxMessageBytes) {
        this.maxMessageBytes = maxMessageBytes;
    }

    /** Whether part of a message has arrived and waits for the rest. */
    boolean partial() {
        return length > 0;
    }

    /** Whether the stream was ended by a message that is too large or malformed. */
    boolean ended() {
        return ended;
    }

    List<Piece> feed(byte[] bytes) {
        if (ended) {
            return List.of();
        }
        append(bytes);
        List<Piece> out = new ArrayList<>(1);
        int start = 0;
        while (start < length && !ended) {
            int text = start;
            while (text < length && (buf[text] == '\r' || buf[text] == '\n')) {
                text++;
            }
            if (text > start) {
                out.add(new Piece.KeepAlive(Arrays.copyOfRange(buf, start, text)));
                start = text;
                scanned = start;
                continue;
            }
            int headerEnd = headerEnd(buf, Math.max(start, scanned - 3), length);
            if (headerEnd < 0) {
                scanned = length;
                if (length - start > maxMessageBytes) {
                    out.add(new Piece.TooLarge(Arrays.copyOfRange(buf, start, start + maxMessageBytes)));
                    ended = true;
                }
                break;
            }
            long contentLength;
            try {
                contentLength = contentLength(buf, start, headerEnd);
            } catch (IllegalArgumentException e) {
                out.add(new Piece.Malformed(e.getMessage(), Arrays.copyOfRange(buf, start, headerEnd)));
                ended = true;
                break;
            }
            long total = (headerEnd - start) + contentLength;
            if (total > maxMessageBytes) {
                out.add(new Piece.TooLarge(Arrays.copyOfRange(buf, start, headerEnd)));
                ended = true;
                break;
            }
            if (length - start < total) {
                scanned = headerEnd;
                break;
            }
            out.add(new Piece.Message(Arrays.copyOfRange(buf, start, start + (int) total)));
            start += (int) total;
            scanned = start;
        }
        if (ended) {
            length = 0;
            buf = new byte[0];
        } else if (start == length) {
            length = 0;
            scanned = 0;
            buf = new byte[0];
        } else if (start > 0) {
            buf = Arrays.copyOfRange(buf, start, length);
            length -= start;
            scanned = Math.max(0, scanned - start);
        }
        return out;
    }

    private void append(byte[] bytes) {
        if (length == 0) {
            // The usual case, a read holding whole messages: framed in place, never copied. The array is
            // only read from here on; a remainder left over is copied out of it.
            buf = bytes;
            length = bytes.length;
            return;
        }
        if (length + bytes.length > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(Math.max(buf.length * 2, 1_024), length + bytes.length));
        }
        System.arraycopy(bytes, 0, buf, length, bytes.length);
        length += bytes.length;
    }

    /** The index just past the empty line that ends the header section starting at {@code from}, or -1. */
    static int headerEnd(byte[] b, int from, int to) {
        for (int i = from; i < to - 1; i++) {
            if (b[i] == '\n') {
                if (b[i + 1] == '\n') {
                    return i + 2;
                }
                if (b[i + 1] == '\r' && i + 2 < to && b[i + 2] == '\n') {
                    return i + 3;
                }
            }
        }
        return -1;
    }

    /**
     * The Content-Length of the header section {@code [from, end)}; 0 when
     * absent. Two different values, or one that is not a number, are errors.
     */
    static long contentLength(byte[] b, int from, int end) {
        String headers = new String(b, from, end - from, StandardCharsets.ISO_8859_1);
        long found = -1;
        for (String line : headers.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon <= 0 || line.charAt(0) == ' ' || line.charAt(0) == '\t') {
                continue;
            }
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            if (!name.equals("content-length") && !name.equals("l")) {
                continue;
            }
            String value = line.substring(colon + 1).trim();
            if (value.isEmpty() || value.length() > 18 || !value.chars().allMatch(Character::isDigit)) {
                throw new IllegalArgumentException("Malformed Content-Length header");
            }
            long n = Long.parseLong(value);
            if (found >= 0 && found != n) {
                throw new IllegalArgumentException("Conflicting Content-Length headers");
            }
            found = n;
        }
        return Math.max(found, 0);
    }
}
