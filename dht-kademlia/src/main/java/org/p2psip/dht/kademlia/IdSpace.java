package org.p2psip.dht.kademlia;

import java.math.BigInteger;

import org.p2psip.core.dht.KeyPlacement;
import java.util.Random;
import java.util.random.RandomGenerator;

/**
 * Kademlia's identifier space: {@code bits}-bit ids (160 in production, the
 * width of SHA-1; smaller in tests) and the XOR metric
 * {@code d(x, y) = x XOR y} of Maymounkov &amp; Mazières §2.1. The metric is
 * symmetric and unidirectional, so every lookup for one key converges on the
 * same nodes whichever node starts it.
 */
public record IdSpace(int bits) {

    public static final IdSpace SHA1 = new IdSpace(160);

    public IdSpace {
        if (bits < 2 || bits > 160) {
            throw new IllegalArgumentException("id width must be 2..160 bits, not " + bits);
        }
    }

    public BigInteger size() {
        return BigInteger.ONE.shiftLeft(bits);
    }

    /**
     * SHA-1 of the text's placement group ({@link KeyPlacement#digest}: the
     * text before its first {@code #}, so an AOR's keys share their closest
     * nodes), truncated to this space's width. Overlay addresses, which hold
     * no {@code #}, are hashed whole.
     */
    public BigInteger idOf(String text) {
        byte[] digest = KeyPlacement.digest(text);
        return new BigInteger(1, digest).shiftRight(160 - bits);
    }

    /** Where {@code id} falls among {@link KeyPlacement#point points}: {@link KeyPlacement#pointOf(BigInteger, int)}. */
    public long pointOf(BigInteger id) {
        return KeyPlacement.pointOf(id, bits);
    }

    public BigInteger distance(BigInteger a, BigInteger b) {
        return a.xor(b);
    }

    /**
     * Which k-bucket of {@code self} holds {@code other}: bucket i covers
     * distances in [2^i, 2^(i+1)), i.e. the index of the highest differing
     * bit; -1 for {@code self} itself.
     */
    public int bucketIndex(BigInteger self, BigInteger other) {
        return self.xor(other).bitLength() - 1;
    }

    /** A uniformly random id in bucket {@code index} of {@code self}, for bucket refresh. */
    public BigInteger randomIdInBucket(BigInteger self, int index, RandomGenerator random) {
        // The top bit of the distance fixes the bucket; the bits below it are free.
        BigInteger low = new BigInteger(index, new Random(random.nextLong()));
        return self.xor(BigInteger.ONE.shiftLeft(index).or(low));
    }

    public BigInteger random(RandomGenerator random) {
        return new BigInteger(bits, new Random(random.nextLong()));
    }

    /** Fixed-width hex, for logs and {@link org.p2psip.core.dht.Peer} ids. */
    public String hex(BigInteger id) {
        String h = id.toString(16);
        int width = (bits + 3) / 4;
        return h.length() >= width ? h : "0".repeat(width - h.length()) + h;
    }
}
