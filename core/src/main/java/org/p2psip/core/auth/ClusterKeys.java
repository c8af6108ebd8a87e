package org.p2psip.core.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Keys for one purpose each, derived from the cluster secret (HMAC-SHA256
 * of the purpose's name under the secret), so that a value made for one
 * purpose (a nonce, a Record-Route token, an admin request) is never valid
 * for another.
 */
public final class ClusterKeys {

    private ClusterKeys() {
    }

    /**
     * An HMAC-SHA256 per thread keyed for {@code purpose}: {@link Mac} is not
     * thread-safe, and making one per call costs more than the MAC itself.
     */
    public static ThreadLocal<Mac> macs(byte[] secret, String purpose) {
        SecretKeySpec key = new SecretKeySpec(derive(secret, purpose), "HmacSHA256");
        return ThreadLocal.withInitial(() -> {
            try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(key);
                return mac;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("every Java runtime has HmacSHA256", e);
            }
        });
    }

    /** The key for {@code purpose}; {@code secret} must not be empty. */
    public static byte[] derive(byte[] secret, String purpose) {
        if (secret == null || secret.length == 0) {
            throw new IllegalArgumentException("the cluster secret must not be empty");
        }
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return mac.doFinal(purpose.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime has HmacSHA256", e);
        }
    }
}
