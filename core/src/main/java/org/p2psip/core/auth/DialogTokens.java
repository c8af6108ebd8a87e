package org.p2psip.core.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;

import javax.crypto.Mac;

/**
 * Tokens a node writes into its Record-Route so that the in-dialog
 * requests of a dialog it accepted can be told from a stranger's request
 * that merely names the node in a Route: an HMAC of the Call-ID under a
 * key derived from the cluster secret. Any node of the cluster checks a
 * token any other wrote; nothing is stored. The token binds the Call-ID
 * only, since the To tag does not exist yet when the Record-Route is added.
 */
public final class DialogTokens {

    private static final int TOKEN_BYTES = 12;

    private final ThreadLocal<Mac> macs;

    public DialogTokens(byte[] secret) {
        this.macs = ClusterKeys.macs(secret, "record-route");
    }

    /** The token for the dialog with {@code callId}: 16 URI-safe characters. */
    public String token(String callId) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw(callId));
    }

    /** Whether {@code token} is the one this cluster writes for {@code callId}. */
    public boolean valid(String callId, String token) {
        if (callId == null || token == null) {
            return false;
        }
        byte[] given;
        try {
            given = Base64.getUrlDecoder().decode(token);
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(raw(callId), given);
    }

    private byte[] raw(String callId) {
        Mac mac = macs.get();
        return Arrays.copyOf(mac.doFinal(callId.getBytes(StandardCharsets.UTF_8)), TOKEN_BYTES);
    }
}
