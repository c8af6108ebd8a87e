package org.p2psip.balancer;

import org.p2psip.sip.wire.Transport;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Flow tokens (RFC 5626 §5.2): the user part of the Path and Record-Route
 * URIs the balancer writes for a client's TCP or TLS connection, so a
 * request a node later sends to that URI goes out on the same connection.
 *
 * <p>A token is {@code t} (TCP) or {@code s} (TLS), the connection's number
 * in hex, {@code -}, and an HMAC-SHA256 of those, cut to 64 bits. The key
 * is drawn at random when the balancer starts: connections do not outlive
 * the process, so neither do their tokens, and a token from an earlier run
 * or made up by someone else names no flow (§5.2: the token must be
 * verifiable, so no one can send requests down another user's flow).
 */
public final class FlowTokens {

    private static final HexFormat HEX = HexFormat.of();
    private static final int MAC_BYTES = 8;

    private final ThreadLocal<Mac> macs;

    /** Tokens under a fresh random key. */
    public FlowTokens() {
        this(randomKey());
    }

    FlowTokens(byte[] key) {
        byte[] k = key.clone();
        this.macs = ThreadLocal.withInitial(() -> {
            try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(k, "HmacSHA256"));
                return mac;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
            }
        });
    }

    /** One client connection, as a token names it. */
    public record Flow(Transport transport, long connection) {

        public Flow {
            if (!transport.stream()) {
                throw new IllegalArgumentException("a flow token names a TCP or TLS connection, not " + transport);
            }
        }
    }

    /** The token for {@code flow}. */
    public String token(Flow flow) {
        String id = (flow.transport() == Transport.TLS ? "s" : "t") + Long.toHexString(flow.connection());
        return id + "-" + mac(id);
    }

    /** The flow {@code token} names, if this balancer wrote it. */
    public Optional<Flow> read(String token) {
        int dash = token.indexOf('-');
        if (dash < 2 || dash > 17 || token.length() != dash + 1 + 2 * MAC_BYTES) {
            return Optional.empty();
        }
        char kind = token.charAt(0);
        if (kind != 't' && kind != 's') {
            return Optional.empty();
        }
        String id = token.substring(0, dash);
        byte[] expected = mac(id).getBytes(StandardCharsets.US_ASCII);
        byte[] given = token.substring(dash + 1).getBytes(StandardCharsets.US_ASCII);
        if (!MessageDigest.isEqual(expected, given)) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Flow(kind == 's' ? Transport.TLS : Transport.TCP,
                    Long.parseUnsignedLong(id.substring(1), 16)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private String mac(String id) {
        byte[] full = macs.get().doFinal(id.getBytes(StandardCharsets.US_ASCII));
        return HEX.formatHex(full, 0, MAC_BYTES);
    }

    private static byte[] randomKey() {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        return key;
    }
}
