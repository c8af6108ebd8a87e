package org.p2psip.dht.chord;

import java.math.BigInteger;

import org.p2psip.core.dht.KeyPlacement;

/**
 * The Chord identifier circle of {@code 2^bits} points, with the interval
 * arithmetic every ring rule is stated in. Production uses 160 bits (SHA-1);
 * tests use a few bits so that every case of wrap-around is reachable.
 *
 * <p>Intervals run clockwise: {@code (a, b)} is every point met going from
 * {@code a} to {@code b}, exclusive. When {@code a == b} the open interval is
 * the whole circle but {@code a} (Zave's convention, which makes a lone
 * node's successor interval cover everyone).
 */
public record IdSpace(int bits) {

    public static final IdSpace SHA1 = new IdSpace(160);

    public IdSpace {
        if (bits < 1 || bits > 160) {
            throw new IllegalArgumentException("an identifier space has 1..160 bits, not " + bits);
        }
    }

    public BigInteger size() {
        return BigInteger.ONE.shiftLeft(bits);
    }

    /**
     * The point of {@code key}: SHA-1 of its placement group
     * ({@link KeyPlacement#digest}: the text before its first {@code #}, so
     * an AOR's keys share one owner), reduced to this space. Overlay
     * addresses, which hold no {@code #}, are hashed whole.
     */
    public BigInteger idOf(String key) {
        byte[] digest = KeyPlacement.digest(key);
        return new BigInteger(1, digest).mod(size());
    }

    /** Where {@code id} falls among {@link KeyPlacement#point points}: {@link KeyPlacement#pointOf(BigInteger, int)}. */
    public long pointOf(BigInteger id) {
        return KeyPlacement.pointOf(id, bits);
    }

    public BigInteger normalize(BigInteger id) {
        return id.mod(size());
    }

    /** {@code x ∈ (a, b)} clockwise. */
    public boolean betweenOpen(BigInteger a, BigInteger x, BigInteger b) {
        int ab = a.compareTo(b);
        if (ab == 0) {
            return !x.equals(a);
        }
        if (ab < 0) {
            return a.compareTo(x) < 0 && x.compareTo(b) < 0;
        }
        return a.compareTo(x) < 0 || x.compareTo(b) < 0;
    }

    /** {@code x ∈ (a, b]} clockwise: the keys a node {@code b} with predecessor {@code a} owns. */
    public boolean betweenRightClosed(BigInteger a, BigInteger x, BigInteger b) {
        return x.equals(b) || betweenOpen(a, x, b);
    }

    /** The start of finger {@code i}: {@code self + 2^i}. */
    public BigInteger fingerStart(BigInteger self, int i) {
        return self.add(BigInteger.ONE.shiftLeft(i)).mod(size());
    }

    /** Clockwise distance from {@code a} to {@code b}. */
    public BigInteger distance(BigInteger a, BigInteger b) {
        return b.subtract(a).mod(size());
    }
}
