package org.p2psip.core.dht;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Where a DHT key sits in the key space, the same way for every backend, so
 * that a node and the balancer in front of it agree on it without sharing a
 * DHT library.
 *
 * <p>A key is placed by its <em>group</em>: the text before its first
 * {@code #}, or all of it without one. Keys that share a group land on the
 * same node: an AOR's bindings ({@code alice@example.com}), its credentials
 * ({@code alice@example.com#cred}) and its nonce counts all live with the
 * AOR, so a REGISTER sent to the AOR's owner reads and writes nothing
 * elsewhere (the same idea as Hazelcast's {@code @} partition keys and
 * Redis Cluster's hash tags).
 *
 * <p>The group's SHA-1 is the key's identifier in the Chord and Kademlia
 * rings; its first 64 bits, read as an unsigned number, are the key's
 * {@linkplain #point point}, the coordinate {@link KeyRangeSet}s are drawn
 * in.
 */
public final class KeyPlacement {

    /** Ends a key's group. */
    public static final char GROUP_END = '#';

    private KeyPlacement() {
    }

    /** The text before the first {@code #} of {@code key}, or all of it. */
    public static String group(String key) {
        int end = key.indexOf(GROUP_END);
        return end < 0 ? key : key.substring(0, end);
    }

    /** SHA-1 of the UTF-8 bytes of {@code key}'s group: 20 bytes. */
    public static byte[] digest(String key) {
        try {
            return MessageDigest.getInstance("SHA-1").digest(group(key).getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks SHA-1", e);
        }
    }

    /** The first 64 bits of {@link #digest}, big-endian: the key's point, compared unsigned. */
    public static long point(String key) {
        return pointOf(digest(key));
    }

    /**
     * Where an identifier of a {@code bits}-wide space falls among points:
     * its top 64 bits (shifted up when the space is narrower), so that in the
     * SHA-1 space a key's identifier and its point agree and a range of
     * identifiers maps onto the range of its keys' points.
     */
    public static long pointOf(BigInteger id, int bits) {
        return bits >= 64 ? id.shiftRight(bits - 64).longValue() : id.shiftLeft(64 - bits).longValue();
    }

    /** The first 64 bits of a digest or identifier of at least 8 bytes, big-endian. */
    public static long pointOf(byte[] digest) {
        if (digest.length < Long.BYTES) {
            throw new IllegalArgumentException("a point needs 8 bytes, not " + digest.length);
        }
        long p = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            p = (p << 8) | (digest[i] & 0xff);
        }
        return p;
    }
}
