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
 * {@code Authorization: P2PSIP-HMAC t=MILLIS, n=NONCE, mac=HEX} header is
 * an HMAC-SHA256, under a key derived from the secret for this purpose
 * alone, of the method, path, time, a random nonce and the body's SHA-256.
 * A request is good within {@link #WINDOW} of its time; the server refuses
 * a nonce it has seen, so a captured request cannot be replayed to it.
 * Pure: time comes in as an argument.
 */
public final class AdminSignature {

    public static final String SCHEME = "P2PSIP-HMAC";
    /** How far a request's time may be from the server's. */
    public static final Duration WINDOW = Duration.ofSeconds(60);

    private final SecretKeySpec key;

    public AdminSignature(byte[] secret) {
        this.key = new SecretKeySpec(ClusterKeys.derive(secret, "admin-request"), "HmacSHA256");
    }

    /** The Authorization value for a request made at {@code now} with a fresh {@code nonce}. */
    public String sign(String method, String path, Instant now, String nonce, byte[] body) {
        long t = now.toEpochMilli();
        return SCHEME + " t=" + t + ", n=" + nonce + ", mac=" + mac(method, path, t, nonce, body);
    }

    /**
     * The nonce of a correctly signed, timely request, or empty when the
     * header is missing, malformed, wrongly signed or out of the window.
     */
    public Optional<String> verify(String header, String method, String path, byte[] body, Instant now) {
        if (header == null || !header.startsWith(SCHEME + " ")) {
            return Optional.empty();
        }
        String t = null;
        String n = null;
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
                case "mac" -> m = v;
                default -> {
                    return Optional.empty();
                }
            }
        }
        if (t == null || n == null || m == null || n.isEmpty() || n.length() > 64) {
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
        byte[] expected = mac(method, path, time, n, body).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, m.getBytes(StandardCharsets.US_ASCII)) ? Optional.of(n) : Optional.empty();
    }

    private String mac(String method, String path, long time, String nonce, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            String head = method + "\n" + path + "\n" + time + "\n" + nonce + "\n";
            mac.update(head.getBytes(StandardCharsets.UTF_8));
            mac.update(MessageDigest.getInstance("SHA-256").digest(body));
            return HexFormat.of().formatHex(mac.doFinal());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every Java runtime has HmacSHA256 and SHA-256", e);
        }
    }
}
