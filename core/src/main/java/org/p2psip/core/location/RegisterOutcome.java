package org.p2psip.core.location;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/** What the registrar rules decided for one REGISTER. */
public sealed interface RegisterOutcome {

    /**
     * The update is committed (or was a fetch): answer 200 listing
     * {@code bindings} (RFC 3261 §10.3 step 8).
     *
     * @param bindings the AOR's bindings after the update, expired ones dropped
     * @param changed  whether anything must be written back
     * @param changes  the bindings the request added, refreshed or removed, in the order of its contacts
     */
    record Accepted(BindingSet bindings, boolean changed, List<BindingChange> changes) implements RegisterOutcome {
        public Accepted {
            Objects.requireNonNull(bindings, "bindings");
            changes = List.copyOf(changes);
        }

        /** An outcome that names no change of its own (a fetch, or bindings that only lapsed). */
        public Accepted(BindingSet bindings, boolean changed) {
            this(bindings, changed, List.of());
        }
    }

    /**
     * The request is refused and nothing is written.
     *
     * @param statusCode  400, 423, 500, 503 ...
     * @param reason      a reason phrase that says what is wrong
     * @param minExpires  the Min-Expires value to send with a 423
     */
    record Rejected(int statusCode, String reason, OptionalLong minExpires) implements RegisterOutcome {
        public Rejected {
            if (statusCode < 300 || statusCode > 699) {
                throw new IllegalArgumentException("a rejection needs a 3xx-6xx status, not " + statusCode);
            }
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(minExpires, "minExpires");
        }

        public static Rejected of(int statusCode, String reason) {
            return new Rejected(statusCode, reason, OptionalLong.empty());
        }
    }
}
