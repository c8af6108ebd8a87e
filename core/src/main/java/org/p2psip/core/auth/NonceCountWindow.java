package org.p2psip.core.auth;

import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * The nonce counts already used with one nonce by one user, as a sliding
 * window (the anti-replay window of RFC 4303 §3.4.3 applied to RFC 7616's
 * {@code nc}): the highest count seen and, as bits, which of the 63 counts
 * below it were seen too. A count is accepted once; a count more than 63
 * below the highest is refused, as UDP reordering never reaches that far
 * while a phone increments its count by one per request.
 *
 * @param highest the highest count accepted so far (0 when none)
 * @param seen    bit {@code i} set when {@code highest - i} was accepted
 */
public record NonceCountWindow(long highest, long seen) {

    public static final NonceCountWindow EMPTY = new NonceCountWindow(0, 0);
    /** The largest count RFC 7616 §3.4 allows: eight hex digits. */
    public static final long MAX_COUNT = 0xFFFF_FFFFL;
    private static final int WIDTH = 64;
    private static final int BYTES = 16;

    public NonceCountWindow {
        if (highest < 0 || highest > MAX_COUNT) {
            throw new IllegalArgumentException("nonce count " + highest + " is outside 0..2^32-1");
        }
    }

    /** The window after accepting {@code nc}, or empty when {@code nc} was used before or is too old. */
    public Optional<NonceCountWindow> accept(long nc) {
        if (nc < 1 || nc > MAX_COUNT) {
            return Optional.empty();
        }
        if (nc > highest) {
            long shift = nc - highest;
            long moved = shift >= WIDTH ? 0 : seen << shift;
            return Optional.of(new NonceCountWindow(nc, moved | 1));
        }
        long back = highest - nc;
        if (back >= WIDTH || (seen & (1L << back)) != 0) {
            return Optional.empty();
        }
        return Optional.of(new NonceCountWindow(highest, seen | (1L << back)));
    }

    public byte[] encode() {
        return ByteBuffer.allocate(BYTES).putLong(highest).putLong(seen).array();
    }

    /** Reads {@link #encode}'s form; anything else counts as a window that has seen everything. */
    public static NonceCountWindow decode(byte[] bytes) {
        if (bytes == null || bytes.length != BYTES) {
            return new NonceCountWindow(MAX_COUNT, -1L);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        long highest = b.getLong();
        long seen = b.getLong();
        if (highest < 0 || highest > MAX_COUNT) {
            return new NonceCountWindow(MAX_COUNT, -1L);
        }
        return new NonceCountWindow(highest, seen);
    }

    /** Parses {@code nc=}'s eight hex digits (RFC 7616 §3.4); -1 when malformed. */
    public static long parse(String nc) {
        if (nc == null || nc.length() != 8) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < 8; i++) {
            int d = Character.digit(nc.charAt(i), 16);
            if (d < 0) {
                return -1;
            }
            v = (v << 4) | d;
        }
        return v;
    }
}
