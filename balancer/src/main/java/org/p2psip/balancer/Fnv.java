package org.p2psip.balancer;

/**
 * 64-bit FNV-1a with a final avalanche step: fast, allocation-free, and
 * the same in every balancer process, which is all that consistent
 * hashing and deterministic branches need (no security is claimed).
 */
final class Fnv {

    private static final long OFFSET = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;

    private Fnv() {
    }

    static long hash(CharSequence s) {
        long h = OFFSET;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            h = (h ^ (c & 0xff)) * PRIME;
            h = (h ^ (c >>> 8)) * PRIME;
        }
        return mix(h);
    }

    static long hash(long seed, byte[] b, int from, int to) {
        long h = OFFSET ^ seed;
        for (int i = from; i < to; i++) {
            h = (h ^ (b[i] & 0xff)) * PRIME;
        }
        return mix(h);
    }

    /** The MurmurHash3 finaliser, so nearby inputs land far apart. */
    static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }
}
