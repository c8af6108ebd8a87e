package org.p2psip.core.location;

import java.util.Locale;
import java.util.Objects;

/**
 * One binding a REGISTER added, refreshed or removed (RFC 3261 §10.3
 * step 7), as the registrar rules decided it, so that whoever keeps a
 * record of registrations (a node's accounting) writes what changed rather
 * than what was asked. Bindings that lapsed on their own are not changes a
 * request made and never appear here.
 *
 * @param contact the contact URI as the UA wrote it
 * @param kind    what happened to the binding
 * @param expires the seconds granted; 0 for a removal
 */
public record BindingChange(String contact, Kind kind, long expires) {

    /** What a REGISTER did to one binding. */
    public enum Kind {
        /** A contact the AOR did not have. */
        ADDED,
        /** A contact it had, given a new expiry. */
        REFRESHED,
        /** A contact it had, removed by {@code expires=0} or {@code Contact: *}. */
        REMOVED;

        /** The lower-case name written to databases and files. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public BindingChange {
        Objects.requireNonNull(contact, "contact");
        Objects.requireNonNull(kind, "kind");
        if (kind == Kind.REMOVED ? expires != 0 : expires <= 0) {
            throw new IllegalArgumentException("a binding " + kind.label() + " cannot have expires " + expires);
        }
    }
}
