package org.p2psip.servlet.admin;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.p2psip.core.auth.ClusterKeys;

/**
 * Authentication of admin requests with the cluster secret: the
 * {@code Authorization: P2PSIP-HMAC t=MILLIS, n=NONCE, to=NODE, mac=HEX}
 * header is an HMAC-SHA256, under a key derived from the secret for this
 * purpose alone, of the method, path, time, a random nonce, the node the
 * request is for (its SIP address, which {@code GET /v1/identity} tells)
 * and the body's SHA-256. A request is good within {@link #WINDOW} of its
 * time and only at the node it names; the cluster refuses a nonce any of
 * its nodes has seen, so a captured request can be replayed neither to
 * its node nor to another. Pure: time comes in as an argument.
 */
public final class AdminSignature {

    public static final String SCHEME = "P2PSIP-HMAC";
    /** How far a request's time may be from the server's. */
    public static final Duration WINDOW = Duration.ofSeconds(60);

    private final SecretKeySpec key;

    public AdminSignature(byte[] secret) {
        this.key = new SecretKeySpec(ClusterKeys.derive(secret, "admin-request"), "HmacSHA256");
    }

    /** A correctly signed, timely request's nonce and the node it names. */
    public record Verified(String nonce, String target) {
    }

    /**
     * The Authorization value for a request to {@code target} made at
     * {@code now} with a fresh {@code nonce} (hex digits).
     */
    public String sign(String method, String path, String target, Instant now, String nonce, byte[] body) {
        long t = now.toEpochMilli();
        return SCHEME + " t=" + t + ", n=" + nonce + ", to=" + target + ", mac="
                + mac(method, path, target, t, nonce, body);
    }

    /**
     * The nonce and target of a correctly signed, timely request, or empty
     * when the header is missing, malformed, wrongly signed or out of the
     * window. Whether the target is the node that received it is the
     * caller's to check.
     */
    public Optional<Verified> verify(String header, String method, String path, byte[] body, Instant now) {
        if (header == null || !header.startsWith(SCHEME + " ")) {
            return Optional.empty();
        }
        String t = null;
        String n = null;
        String to = null;
        String m = null;
        for (String part : header.substring(SCHEME.length() + 1).split(",")) {
            String p = part.trim();
            int eq = p.indexOf('=');
            if (eq <= 0) {
                return Optional.empty();
            }
            String v = p.substring(eq + 1);
            switch (p.substring(0, eq)) {
                case "t" -> t = v;
                case "n" -> n = v;
                case "to" -> to = v;
                case "mac" -> m = v;
                default -> {
                    return Optional.empty();
                }
            }
        }
        if (t == null || n == null || to == null || m == null || n.isEmpty() || n.length() > 64
                || !n.chars().allMatch(c -> Character.digit(c, 16) >= 0) || to.isEmpty() || to.length() > 300) {
            return Optional.empty();
        }
        long time;
        try {
            time = Long.parseLong(t);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        if (Math.abs(now.toEpochMilli() - time) > WINDOW.toMillis()) {
            return Optional.empty();
        }
        byte[] expected = mac(method, path, to, time, n, body).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, m.getBytes(StandardCharsets.US_ASCII))
                ? Optional.of(new Verified(n, to)) : Optional.empty();
    }

    private String mac(String method, String path, String target, long time, String nonce, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            String head = method + "\n" + path + "\n" + target + "\n" + time + "\n" + nonce + "\n";
            mac.update(head.getBytes(StandardCharsets.UTF_8));
            mac.update(MessageDigest.getInstance("SHA-256").digest(body));
            return HexFormat.of().formatHex(mac.doFinal());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime has HmacSHA256 and SHA-256", e);
        }
    }
}
