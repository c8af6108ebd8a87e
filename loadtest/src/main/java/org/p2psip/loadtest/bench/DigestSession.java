package org.p2psip.loadtest.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.DigestCredentials;
import org.p2psip.core.auth.DigestRules;

/**
 * One lane's digest state, as a phone keeps it (RFC 7616 §3.4): the realm,
 * nonce and algorithm of the last challenge, and the nonce count, which
 * goes up by one with every request sent with that nonce. Credentials go
 * with every request once a nonce is known, so only the first request and
 * those after a new challenge (the nonce went stale) cost a round trip.
 * Not thread-safe: the lane's event loop owns it.
 */
final class DigestSession {

    private final String password;
    private final String cnonce;
    private String realm;
    private String nonce;
    private String opaque;
    private DigestAlgorithm algorithm;
    private long nc;

    DigestSession(String password, String cnonce) {
        this.password = password;
        this.cnonce = cnonce;
    }

    /** Whether a challenge has been seen, so requests can carry credentials from the start. */
    boolean ready() {
        return nonce != null;
    }

    /**
     * Takes the first challenge of a 401 or 407 whose algorithm this
     * generator knows; returns false when there is none.
     */
    boolean learn(List<String> challenges) {
        for (String c : challenges) {
            Map<String, String> p = params(c);
            Optional<DigestAlgorithm> a = DigestAlgorithm.byToken(p.getOrDefault("algorithm", "MD5"));
            if (a.isPresent() && p.containsKey("nonce") && p.containsKey("realm")) {
                realm = p.get("realm");
                nonce = p.get("nonce");
                opaque = p.get("opaque");
                algorithm = a.get();
                nc = 0;
                return true;
            }
        }
        return false;
    }

    /** The credentials of {@code user} for {@code method} {@code uri} with the next nonce count. */
    String authorize(String user, String method, String uri) {
        if (!ready()) {
            throw new IllegalStateException("no challenge seen yet");
        }
        String count = String.format(Locale.ROOT, "%08x", ++nc);
        DigestCredentials unsigned = new DigestCredentials(user, realm, nonce, uri, "", algorithm.token(), cnonce,
                "auth", count, "");
        String response = DigestRules.expectedResponse(algorithm, algorithm.ha1(user, realm, password), method, unsigned);
        StringBuilder b = new StringBuilder(320).append("Digest username=\"").append(user).append("\", realm=\"")
                .append(realm).append("\", nonce=\"").append(nonce).append("\", uri=\"").append(uri)
                .append("\", response=\"").append(response).append("\", algorithm=").append(algorithm.token())
                .append(", cnonce=\"").append(cnonce).append("\", qop=auth, nc=").append(count);
        if (opaque != null) {
            b.append(", opaque=\"").append(opaque).append('"');
        }
        return b.toString();
    }

    /** {@code Digest k="v", k=v} to a map with lower-case keys and unquoted values. */
    static Map<String, String> params(String challenge) {
        String v = challenge.trim();
        if (v.regionMatches(true, 0, "Digest", 0, 6)) {
            v = v.substring(6);
        }
        Map<String, String> out = new LinkedHashMap<>();
        int i = 0;
        int n = v.length();
        while (i < n) {
            while (i < n && (v.charAt(i) == ',' || v.charAt(i) == ' ' || v.charAt(i) == '\t')) {
                i++;
            }
            int eq = v.indexOf('=', i);
            if (eq < 0) {
                break;
            }
            String key = v.substring(i, eq).trim().toLowerCase(Locale.ROOT);
            int j = eq + 1;
            String value;
            if (j < n && v.charAt(j) == '"') {
                int close = v.indexOf('"', j + 1);
                if (close < 0) {
                    break;
                }
                value = v.substring(j + 1, close);
                j = close + 1;
            } else {
                int comma = v.indexOf(',', j);
                int end = comma < 0 ? n : comma;
                value = v.substring(j, end).trim();
                j = end;
            }
            out.put(key, value);
            i = j;
        }
        return out;
    }
}
