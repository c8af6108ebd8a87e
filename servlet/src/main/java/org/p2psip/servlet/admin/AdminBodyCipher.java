package org.p2psip.servlet.admin;

import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Optional;
import java.util.random.RandomGenerator;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import org.p2psip.core.auth.ClusterKeys;

/**
 * Encryption of admin request bodies (AES-256-GCM, NIST SP 800-38D) under
 * a key derived from the cluster secret for this purpose alone: {@code user
 * add} and {@code user import} carry HA1s, and an HA1 is as good as the
 * password for signing in as that user (RFC 7616 §5.2), so it must not
 * cross the wire in clear. The admin protocol stays plain HTTP, which a
 * node needs no certificate for. On the wire: a 12-byte IV, then the
 * ciphertext and its 16-byte tag. Pure: the IV's randomness comes in.
 */
public final class AdminBodyCipher {

    /** The request header that says a body is sealed this way. */
    public static final String HEADER = "X-P2PSIP-Body";
    public static final String SCHEME = "aes-256-gcm";
    private static final int IV_BYTES = 12;
    private static final int TAG_BITS = 128;

    private final SecretKeySpec key;

    public AdminBodyCipher(byte[] secret) {
        this.key = new SecretKeySpec(ClusterKeys.derive(secret, "admin-body"), "AES");
    }

    /** {@code plain} sealed with a fresh IV drawn from {@code random}. */
    public byte[] seal(byte[] plain, RandomGenerator random) {
        byte[] iv = new byte[IV_BYTES];
        random.nextBytes(iv);
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, iv));
            byte[] sealed = c.doFinal(plain);
            byte[] out = Arrays.copyOf(iv, IV_BYTES + sealed.length);
            System.arraycopy(sealed, 0, out, IV_BYTES, sealed.length);
            return out;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime has AES/GCM", e);
        }
    }

    /** The plain body, or empty when {@code sealed} was not sealed with this cluster's key or was altered. */
    public Optional<byte[]> open(byte[] sealed) {
        if (sealed.length < IV_BYTES + TAG_BITS / 8) {
            return Optional.empty();
        }
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed, 0, IV_BYTES));
            return Optional.of(c.doFinal(sealed, IV_BYTES, sealed.length - IV_BYTES));
        } catch (AEADBadTagException e) {
            return Optional.empty();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime has AES/GCM", e);
        }
    }
}
