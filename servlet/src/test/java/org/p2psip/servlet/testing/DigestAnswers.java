package org.p2psip.servlet.testing;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.DigestChallenge;
import org.p2psip.core.testing.SipText;

/** What a phone does with a 401 or 407 (RFC 7616 §3.4), for tests that play the phone. */
public final class DigestAnswers {

    private DigestAnswers() {
    }

    /** The challenges of a 401 (WWW-Authenticate) or 407 (Proxy-Authenticate), in order, as parameter maps. */
    public static List<Map<String, String>> challenges(SipText response) {
        String name = response.status() == 407 ? "proxy-authenticate" : "www-authenticate";
        return response.rawHeaders(name).stream().map(DigestChallenge::parameters).toList();
    }

    /** The first challenge offering {@code algorithm}. */
    public static DigestChallenge challengeFor(SipText response, DigestAlgorithm algorithm) {
        String name = response.status() == 407 ? "proxy-authenticate" : "www-authenticate";
        return response.rawHeaders(name).stream().map(DigestChallenge::parse).flatMap(Optional::stream)
                .filter(c -> c.algorithm() == algorithm).findFirst()
                .orElseThrow(() -> new AssertionError("no " + algorithm.token() + " challenge in " + response.rawHeaders(name)));
    }

    /** The (Proxy-)Authorization value answering {@code challenge} for {@code method} {@code uri}. */
    public static String answer(DigestChallenge challenge, String username, String password, String method,
                                String uri, long nc) {
        return challenge.answer(username, password, method, uri, nc, "c" + Long.toHexString(nc * 7919 + 13));
    }
}
