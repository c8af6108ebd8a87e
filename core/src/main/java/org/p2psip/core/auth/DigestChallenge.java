package org.p2psip.core.auth;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A Digest challenge as a client reads it from a 401's WWW-Authenticate or
 * a 407's Proxy-Authenticate (RFC 7616 §3.3), and the answer a client
 * writes to it (§3.4) with {@code qop=auth}: what the load generator and
 * the tests that play a phone need.
 *
 * @param realm     the realm
 * @param nonce     the server's nonce
 * @param algorithm the algorithm the challenge names (MD5 when it names none)
 * @param opaque    the opaque value to echo, or empty
 * @param stale     whether the challenge says the last nonce was stale
 */
public record DigestChallenge(String realm, String nonce, DigestAlgorithm algorithm, String opaque, boolean stale) {

    public DigestChallenge {
        Objects.requireNonNull(realm, "realm");
        Objects.requireNonNull(nonce, "nonce");
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(opaque, "opaque");
    }

    /**
     * The value of a WWW-Authenticate or Proxy-Authenticate header offering
     * {@code algorithm} with {@code qop=auth} (RFC 7616 §3.3), as a node and
     * the balancer write it.
     */
    public static String value(String realm, String nonce, DigestAlgorithm algorithm, boolean stale) {
        StringBuilder v = new StringBuilder(160).append("Digest realm=\"").append(realm).append("\", nonce=\"")
                .append(nonce).append("\", algorithm=").append(algorithm.token()).append(", qop=\"auth\"");
        if (stale) {
            v.append(", stale=true");
        }
        return v.toString();
    }

    /** Reads one challenge value; empty when it is not Digest, lacks realm or nonce, or names an unknown algorithm. */
    public static Optional<DigestChallenge> parse(String header) {
        String v = header.trim();
        if (!v.regionMatches(true, 0, "Digest", 0, 6)) {
            return Optional.empty();
        }
        Map<String, String> p = parameters(v);
        Optional<DigestAlgorithm> a = DigestAlgorithm.byToken(p.getOrDefault("algorithm", "MD5"));
        if (a.isEmpty() || !p.containsKey("realm") || !p.containsKey("nonce")) {
            return Optional.empty();
        }
        return Optional.of(new DigestChallenge(p.get("realm"), p.get("nonce"), a.get(), p.getOrDefault("opaque", ""),
                "true".equalsIgnoreCase(p.get("stale"))));
    }

    /**
     * The (Proxy-)Authorization value answering this challenge as
     * {@code username} with {@code password}, for {@code method} and
     * {@code uri}, with nonce count {@code nc} and client nonce {@code cnonce}.
     */
    public String answer(String username, String password, String method, String uri, long nc, String cnonce) {
        String count = String.format(Locale.ROOT, "%08x", nc);
        DigestCredentials unsigned = new DigestCredentials(username, realm, nonce, uri, "", algorithm.token(), cnonce,
                "auth", count, opaque);
        String response = DigestRules.expectedResponse(algorithm, algorithm.ha1(username, realm, password), method,
                unsigned);
        StringBuilder b = new StringBuilder(320).append("Digest username=\"").append(username).append("\", realm=\"")
                .append(realm).append("\", nonce=\"").append(nonce).append("\", uri=\"").append(uri)
                .append("\", response=\"").append(response).append("\", algorithm=").append(algorithm.token())
                .append(", cnonce=\"").append(cnonce).append("\", qop=auth, nc=").append(count);
        if (!opaque.isEmpty()) {
            b.append(", opaque=\"").append(opaque).append('"');
        }
        return b.toString();
    }

    /**
     * The parameters of a challenge value ({@code Digest k="v", k=v, ...},
     * the scheme optional) by lower-case name, unquoted, in order.
     */
    public static Map<String, String> parameters(String challenge) {
        String text = challenge.trim();
        if (text.regionMatches(true, 0, "Digest", 0, 6)) {
            text = text.substring(6);
        }
        Map<String, String> out = new LinkedHashMap<>();
        int i = 0;
        int n = text.length();
        while (i < n) {
            while (i < n && (text.charAt(i) == ',' || text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
                i++;
            }
            int eq = text.indexOf('=', i);
            if (eq < 0) {
                break;
            }
            String key = text.substring(i, eq).trim().toLowerCase(Locale.ROOT);
            int j = eq + 1;
            String value;
            if (j < n && text.charAt(j) == '"') {
                int close = text.indexOf('"', j + 1);
                if (close < 0) {
                    break;
                }
                value = text.substring(j + 1, close);
                j = close + 1;
            } else {
                int comma = text.indexOf(',', j);
                int end = comma < 0 ? n : comma;
                value = text.substring(j, end).trim();
                j = end;
            }
            out.put(key, value);
            i = j;
        }
        return out;
    }
}
