package org.p2psip.core.auth;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

import javax.crypto.Mac;

/**
 * Nonces that need no state on any node (DESIGN.md, "Trust model"): a
 * nonce is the instant it was issued, eight random bytes, and an HMAC-SHA256
 * over the realm, that instant and those bytes keyed with the cluster
 * secret, so every node holding the secret recognises a nonce any other
 * node issued, and nobody without it can make one. RFC 7616 §3.3 leaves
 * the nonce's form to the server and suggests exactly this shape (a time
 * stamp and a private key).
 *
 * <p>Freshness is the issue time plus {@link #lifetime()}; replay of one
 * response within it is the job of the nonce count
 * ({@link NonceCountWindow}), which this class does not see.
 */
public final class StatelessNonces {

    private static final int TIME_BYTES = 8;
    private static final int RANDOM_BYTES = 8;
    private static final int MAC_BYTES = 16;
    private static final int NONCE_BYTES = TIME_BYTES + RANDOM_BYTES + MAC_BYTES;
    /** Nodes' clocks differ a little; a nonce from slightly ahead is still one of ours. */
    static final Duration CLOCK_SKEW = Duration.ofSeconds(30);

    private final Duration lifetime;
    private final ThreadLocal<Mac> macs;

    /**
     * @param secret   the cluster secret (a key for nonces alone is derived from it)
     * @param lifetime how long a nonce is fresh; RFC 7616 leaves it to the server
     */
    public StatelessNonces(byte[] secret, Duration lifetime) {
        Objects.requireNonNull(lifetime, "lifetime");
        if (lifetime.isNegative() || lifetime.isZero()) {
            throw new IllegalArgumentException("the nonce lifetime must be positive");
        }
        this.lifetime = lifetime;
        this.macs = ClusterKeys.macs(secret, "sip-digest-nonce");
    }

    public Duration lifetime() {
        return lifetime;
    }

    /** A new nonce for {@code realm} issued at {@code now}; {@code random} makes it unique. */
    public String issue(String realm, Instant now, long random) {
        ByteBuffer b = ByteBuffer.allocate(NONCE_BYTES);
        b.putLong(now.toEpochMilli()).putLong(random);
        b.put(mac(realm, b.array(), TIME_BYTES + RANDOM_BYTES), 0, MAC_BYTES);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
    }

    /** Whether {@code nonce} is one of ours for {@code realm}, and whether it is still fresh at {@code now}. */
    public NonceStatus check(String nonce, String realm, Instant now) {
        if (nonce == null || nonce.length() != 43) {
            return NonceStatus.INVALID;
        }
        byte[] raw;
        try {
            raw = Base64.getUrlDecoder().decode(nonce);
        } catch (IllegalArgumentException e) {
            return NonceStatus.INVALID;
        }
        if (raw.length != NONCE_BYTES) {
            return NonceStatus.INVALID;
        }
        byte[] expected = Arrays.copyOf(mac(realm, raw, TIME_BYTES + RANDOM_BYTES), MAC_BYTES);
        byte[] actual = Arrays.copyOfRange(raw, TIME_BYTES + RANDOM_BYTES, NONCE_BYTES);
        if (!MessageDigest.isEqual(expected, actual)) {
            return NonceStatus.INVALID;
        }
        Instant issued = Instant.ofEpochMilli(ByteBuffer.wrap(raw).getLong());
        if (issued.isAfter(now.plus(CLOCK_SKEW))) {
            return NonceStatus.INVALID;
        }
        return issued.plus(lifetime).isBefore(now) ? new NonceStatus.Expired(issued) : new NonceStatus.Fresh(issued);
    }

    /** When a nonce issued at {@code issuedAt} stops being fresh anywhere in the cluster. */
    public Instant freshUntil(Instant issuedAt) {
        return issuedAt.plus(lifetime).plus(CLOCK_SKEW);
    }

    private byte[] mac(String realm, byte[] bytes, int length) {
        Mac mac = macs.get();
        mac.update(realm.getBytes(StandardCharsets.UTF_8));
        mac.update((byte) 0);
        mac.update(bytes, 0, length);
        return mac.doFinal();
    }
}
