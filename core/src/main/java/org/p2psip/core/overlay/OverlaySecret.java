package org.p2psip.core.overlay;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The cluster secret every overlay frame is authenticated with
 * (HMAC-SHA256), never used as a key itself: each use gets a key
 * {@linkplain #derive derived} from it (a TCP connection's session key, the
 * datagram key, the Hazelcast cluster name). Nodes that do not share it
 * cannot exchange a single frame: a peer without it can neither join nor
 * read nor write.
 */
public final class OverlaySecret {

    public static final String ALGORITHM = "HmacSHA256";
    /** Length of the MAC appended to every frame. */
    public static final int MAC_BYTES = 32;

    private final SecretKeySpec key;

    private OverlaySecret(byte[] key) {
        if (key.length == 0) {
            throw new IllegalArgumentException("the overlay secret must not be empty");
        }
        this.key = new SecretKeySpec(key.clone(), ALGORITHM);
    }

    /** The secret as an operator types it ({@code --overlay-secret}). */
    public static OverlaySecret of(String text) {
        return new OverlaySecret(text.getBytes(StandardCharsets.UTF_8));
    }

    /** A fresh MAC; {@link Mac} is not thread-safe, so each handler owns one. */
    public Mac newMac() {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks " + ALGORITHM, e);
        }
    }

    /**
     * A key derived from the secret for one purpose: HMAC-SHA256(secret,
     * label || parts...). Keys for different purposes (a TCP session, UDP
     * datagrams, the Hazelcast cluster name) never coincide, so what one
     * reveals or accepts says nothing about another.
     */
    public byte[] derive(String label, byte[]... parts) {
        Mac mac = newMac();
        mac.update(label.getBytes(StandardCharsets.UTF_8));
        // A zero byte ends the label, so no label is a prefix of another's input.
        mac.update((byte) 0);
        for (byte[] part : parts) {
            mac.update(part);
        }
        return mac.doFinal();
    }

    /** A fresh HMAC-SHA256 keyed with a derived key (see {@link #derive}). */
    static Mac macWithKey(byte[] key) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks " + ALGORITHM, e);
        }
    }

    /** Constant-time comparison, so a forger learns nothing from timing. */
    static boolean macMatches(byte[] expected, byte[] actual) {
        return MessageDigest.isEqual(expected, actual);
    }

    @Override
    public String toString() {
        // Never print the key itself.
        return "OverlaySecret[" + Arrays.hashCode(key.getEncoded()) % 1000 + "]";
    }
}
