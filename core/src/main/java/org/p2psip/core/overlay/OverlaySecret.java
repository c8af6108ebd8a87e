package org.p2psip.core.overlay;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The cluster secret every overlay frame is authenticated with
 * (HMAC-SHA256). Nodes that do not share it cannot exchange a single frame:
 * a peer without it can neither join nor read nor write.
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
