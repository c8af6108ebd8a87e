package org.p2psip.servlet.testing;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.DigestCredentials;
import org.p2psip.core.auth.DigestRules;

/** What a phone does with a 401 or 407 (RFC 7616 §3.4), for tests that play the phone. */
public final class DigestAnswers {

    private DigestAnswers() {
    }

    /** The challenges of a 401 (WWW-Authenticate) or 407 (Proxy-Authenticate), in order, as parameter maps. */
    public static List<Map<String, String>> challenges(SipText response) {
        String name = response.status() == 407 ? "proxy-authenticate" : "www-authenticate";
        return response.rawHeaders(name).stream().map(DigestAnswers::params).toList();
    }

    /** The first challenge offering {@code algorithm}. */
    public static Map<String, String> challengeFor(SipText response, DigestAlgorithm algorithm) {
        return challenges(response).stream()
                .filter(c -> algorithm.token().equalsIgnoreCase(c.getOrDefault("algorithm", "MD5")))
                .findFirst().orElseThrow(() -> new AssertionError("no " + algorithm.token() + " challenge in "
                        + response.rawHeaders("www-authenticate") + response.rawHeaders("proxy-authenticate")));
    }

    /** The (Proxy-)Authorization value answering {@code challenge} for {@code method} {@code uri}. */
    public static String answer(Map<String, String> challenge, String username, String password, String method,
                                String uri, long nc) {
        DigestAlgorithm a = DigestAlgorithm.byToken(challenge.getOrDefault("algorithm", "MD5")).orElseThrow();
        String realm = challenge.get("realm");
        String nonce = challenge.get("nonce");
        String ncText = String.format(Locale.ROOT, "%08x", nc);
        String cnonce = "c" + Long.toHexString(nc * 7919 + 13);
        DigestCredentials unsigned = new DigestCredentials(username, realm, nonce, uri, "", a.token(), cnonce, "auth",
                ncText, "");
        String response = DigestRules.expectedResponse(a, a.ha1(username, realm, password), method, unsigned);
        return "Digest username=\"" + username + "\", realm=\"" + realm + "\", nonce=\"" + nonce + "\", uri=\""
                + uri + "\", response=\"" + response + "\", algorithm=" + a.token() + ", cnonce=\"" + cnonce
                + "\", qop=auth, nc=" + ncText;
    }

    /** {@code Digest k="v", k=v, ...} to a map with lower-case keys and unquoted values. */
    static Map<String, String> params(String header) {
        String v = header.trim();
        if (v.regionMatches(true, 0, "Digest ", 0, 7)) {
            v = v.substring(7);
        }
        Map<String, String> out = new LinkedHashMap<>();
        int i = 0;
        while (i < v.length()) {
            int eq = v.indexOf('=', i);
            if (eq < 0) {
                break;
            }
            String key = v.substring(i, eq).trim().toLowerCase(Locale.ROOT);
            int j = eq + 1;
            String value;
            if (j < v.length() && v.charAt(j) == '"') {
                int close = v.indexOf('"', j + 1);
                value = v.substring(j + 1, close);
                j = close + 1;
            } else {
                int comma = v.indexOf(',', j);
                value = (comma < 0 ? v.substring(j) : v.substring(j, comma)).trim();
                j = comma < 0 ? v.length() : comma;
            }
            out.put(key, value);
            int comma = v.indexOf(',', j);
            i = comma < 0 ? v.length() : comma + 1;
        }
        return out;
    }
}
