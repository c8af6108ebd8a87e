package org.p2psip.core.auth;

import java.time.Instant;
import java.util.Objects;

/** What {@link StatelessNonces#check} found out about a nonce a client sent back. */
public sealed interface NonceStatus {

    /** Issued by a node of this cluster for this realm and still within its lifetime. */
    record Fresh(Instant issuedAt) implements NonceStatus {
        public Fresh {
            Objects.requireNonNull(issuedAt, "issuedAt");
        }
    }

    /**
     * Issued by a node of this cluster for this realm, but older than the
     * lifetime: a correct response to it earns {@code stale=true}
     * (RFC 7616 §3.3), so the client retries with a new nonce without
     * asking its user for the password again.
     */
    record Expired(Instant issuedAt) implements NonceStatus {
        public Expired {
            Objects.requireNonNull(issuedAt, "issuedAt");
        }
    }

    /** Not a nonce of this cluster (forged, for another realm, garbled, or from too far in the future). */
    record Invalid() implements NonceStatus {
    }

    NonceStatus INVALID = new Invalid();
}
