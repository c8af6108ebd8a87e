package org.p2psip.servlet.auth;

import java.time.Duration;
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

    /**
     * The user's answers from this address are refused unheard for {@code
     * remaining} more: too many were wrong ({@link FailedLogins}).
     */
    record Refused(Duration remaining) implements AuthOutcome {
        public Refused {
            Objects.requireNonNull(remaining, "remaining");
        }

        /** The reason phrase of the 403 that says so. */
        public String reason() {
            return "Forbidden: too many failed logins from this address; wait " + Math.max(1, remaining.toSeconds())
                    + " s";
        }
    }

    AuthOutcome CHALLENGE = new Challenge(false);
    AuthOutcome STALE = new Challenge(true);
}
