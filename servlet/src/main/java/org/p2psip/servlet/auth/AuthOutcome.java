package org.p2psip.servlet.auth;

import java.util.Objects;

import org.p2psip.core.auth.UserCredentials;

/** What {@link DigestAuthenticator#authenticate} found. */
public sealed interface AuthOutcome {

    /** The request carries valid, unused credentials of {@code user}. */
    record Authenticated(UserCredentials user) implements AuthOutcome {
        public Authenticated {
            Objects.requireNonNull(user, "user");
        }
    }

    /**
     * No usable credentials: answer 401 or 407 with a fresh challenge,
     * {@code stale=true} when the password was right but the nonce (or its
     * count) was not.
     */
    record Challenge(boolean stale) implements AuthOutcome {
    }

    AuthOutcome CHALLENGE = new Challenge(false);
    AuthOutcome STALE = new Challenge(true);
}
