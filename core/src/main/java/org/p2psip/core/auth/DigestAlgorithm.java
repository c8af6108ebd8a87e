package org.p2psip.core.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The digest algorithms a SIP registrar offers (RFC 8760 §2: MD5,
 * SHA-256 and SHA-512-256; the {@code -sess} variants are not offered). The
 * hash H of RFC 7616 §3.4 is the algorithm's digest written as lower-case
 * hex.
 */
public enum DigestAlgorithm {

    MD5("MD5", "MD5"),
    SHA_256("SHA-256", "SHA-256"),
    SHA_512_256("SHA-512-256", "SHA-512/256");

    private final String token;
    private final ThreadLocal<MessageDigest> digests;

    DigestAlgorithm(String token, String jdkName) {
        this.token = token;
        this.digests = ThreadLocal.withInitial(() -> {
            try {
                return MessageDigest.getInstance(jdkName);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every Java 17 runtime has " + jdkName, e);
            }
        });
    }

    /** The name as written in {@code algorithm=} (RFC 8760 §2). */
    public String token() {
        return token;
    }

    /**
     * The algorithm an {@code algorithm=} value names, case-insensitively;
     * empty for anything not offered here (including the {@code -sess}
     * variants). A challenge response without the parameter means MD5
     * (RFC 2617 §3.2.1), which the caller decides.
     */
    public static Optional<DigestAlgorithm> byToken(String token) {
        if (token == null) {
            return Optional.empty();
        }
        String t = token.trim();
        if (t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"")) {
            t = t.substring(1, t.length() - 1);
        }
        for (DigestAlgorithm a : values()) {
            if (a.token.equalsIgnoreCase(t)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    /** H(data): the digest of {@code data}'s UTF-8 bytes in lower-case hex. */
    public String hash(String data) {
        MessageDigest d = digests.get();
        d.reset();
        return HexFormat.of().formatHex(d.digest(data.getBytes(StandardCharsets.UTF_8)));
    }

    /** HA1 = H(username ":" realm ":" password) (RFC 7616 §3.4.2), what a credential store keeps. */
    public String ha1(String username, String realm, String password) {
        return hash(username + ":" + realm + ":" + password);
    }

    /** Length of this algorithm's hex digest, to reject a malformed stored or received value early. */
    public int hexLength() {
        return this == MD5 ? 32 : 64;
    }

    /** Parses a comma-separated list as {@code --digest-algorithms} takes it; order kept, duplicates refused. */
    public static List<DigestAlgorithm> parseList(String text) {
        List<DigestAlgorithm> list = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            String p = part.trim();
            DigestAlgorithm a = byToken(p).orElseThrow(() -> new IllegalArgumentException(
                    "unknown digest algorithm '" + p + "' (known: SHA-256, SHA-512-256, MD5)"));
            if (list.contains(a)) {
                throw new IllegalArgumentException("digest algorithm " + a.token + " is listed twice");
            }
            list.add(a);
        }
        return List.copyOf(list);
    }

    @Override
    public String toString() {
        return token;
    }
}
