package org.p2psip.core.auth;

import java.util.Objects;

/** What {@link DigestRules#verify} decided about one digest response. */
public sealed interface DigestVerdict {

    /**
     * The response proves the password: the caller still has to record its
     * nonce count ({@link NonceCountStore}) and check what the user may do.
     *
     * @param user the credentials it proved
     * @param nc   the nonce count used; 1 for a response without qop, whose nonce is then spent
     */
    record Verified(UserCredentials user, long nc) implements DigestVerdict {
        public Verified {
            Objects.requireNonNull(user, "user");
        }
    }

    /**
     * The response is right but its nonce is too old: challenge again with
     * {@code stale=true} (RFC 7616 §3.3).
     */
    record Stale() implements DigestVerdict {
    }

    /**
     * Nothing proven: unknown user, wrong password, malformed or foreign
     * response. The client gets a fresh challenge that looks the same in
     * every one of these cases, so it cannot tell an unknown user from a
     * wrong password.
     *
     * @param why for the log, never for the wire
     */
    record Failed(String why) implements DigestVerdict {
        public Failed {
            Objects.requireNonNull(why, "why");
        }
    }
}
