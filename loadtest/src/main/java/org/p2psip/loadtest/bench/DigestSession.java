package org.p2psip.loadtest.bench;

import java.util.List;
import java.util.Optional;

import org.p2psip.core.auth.DigestChallenge;

/**
 * One lane's digest state, as a phone keeps it (RFC 7616 §3.4): the last
 * challenge and the nonce count, which goes up by one with every request
 * sent with that nonce. Credentials go with every request once a nonce is
 * known, so only the first request and those after a new challenge (the
 * nonce went stale) cost a round trip. Not thread-safe: the lane's event
 * loop owns it.
 */
final class DigestSession {

    private final String password;
    private final String cnonce;
    private DigestChallenge challenge;
    private long nc;

    DigestSession(String password, String cnonce) {
        this.password = password;
        this.cnonce = cnonce;
    }

    /** Whether a challenge has been seen, so requests can carry credentials from the start. */
    boolean ready() {
        return challenge != null;
    }

    /**
     * Takes the first challenge of a 401 or 407 whose algorithm this
     * generator knows; returns false when there is none.
     */
    boolean learn(List<String> challenges) {
        for (String c : challenges) {
            Optional<DigestChallenge> parsed = DigestChallenge.parse(c);
            if (parsed.isPresent()) {
                challenge = parsed.get();
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
        return challenge.answer(user, password, method, uri, ++nc, cnonce);
    }
}
