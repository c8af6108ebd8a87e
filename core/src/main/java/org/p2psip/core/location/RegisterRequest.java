package org.p2psip.core.location;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

import org.p2psip.core.net.HostPort;

/**
 * What the registrar rules need from a REGISTER (RFC 3261 §10.3), free of
 * any SIP stack's types.
 *
 * @param aor        the address-of-record from the To header
 * @param contacts   the Contact values in order; empty for a fetch
 * @param expires    the Expires header in seconds, if present
 * @param callId     the Call-ID
 * @param cseq       the CSeq number (0..2^32-1)
 * @param path       Path header values (RFC 3327), outermost first
 * @param source     the address the request came from
 * @param transport  the transport it came over
 */
public record RegisterRequest(AddressOfRecord aor, List<ContactSpec> contacts, OptionalLong expires,
                              String callId, long cseq, List<String> path, HostPort source,
                              String transport) {

    public RegisterRequest {
        Objects.requireNonNull(aor, "aor");
        Objects.requireNonNull(expires, "expires");
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(transport, "transport");
        if (callId.isBlank()) {
            throw new IllegalArgumentException("Call-ID is empty");
        }
        if (expires.isPresent() && expires.getAsLong() < 0) {
            throw new IllegalArgumentException("Expires must not be negative");
        }
        if (cseq < 0 || cseq > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("CSeq " + cseq + " is outside 0..2^32-1");
        }
        contacts = List.copyOf(contacts);
        path = List.copyOf(path);
    }

    /** A REGISTER without Contact only asks for the current bindings (§10.3 step 8). */
    public boolean isFetch() {
        return contacts.isEmpty();
    }

    /**
     * Whether applying this request may store a binding: it names a contact
     * that is not the wildcard with an expiry other than 0 (its own
     * {@code expires} parameter, else the Expires header, else the
     * registrar's default, which is never 0; §10.3 step 6). Fetches and
     * removals only ever shrink what is stored.
     */
    public boolean mayAddBindings() {
        for (ContactSpec c : contacts) {
            if (c.isWildcard()) {
                continue;
            }
            OptionalLong own = c.expires();
            long e = own.isPresent() ? own.getAsLong() : expires.orElse(1);
            if (e != 0) {
                return true;
            }
        }
        return false;
    }
}
