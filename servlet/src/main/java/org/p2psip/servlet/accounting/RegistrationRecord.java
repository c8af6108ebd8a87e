package org.p2psip.servlet.accounting;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

import org.p2psip.core.location.BindingChange;

/**
 * One binding a REGISTER changed, as the node that applied it accounts it
 * ({@code --acct-registrations}): a row of {@code acc_registrations},
 * which is only ever appended to. Text is cut to its column
 * ({@link ColumnText}); the time to the millisecond.
 *
 * @param at      when the node applied the change
 * @param node    the node's SIP address
 * @param aor     the address-of-record (RFC 3261 §10.3 step 5's canonical form)
 * @param contact the contact URI
 * @param expires seconds granted; 0 for a removal
 * @param callId  the REGISTER's Call-ID
 * @param cseq    its CSeq number
 * @param change  what happened to the binding
 */
public record RegistrationRecord(Instant at, String node, String aor, String contact, long expires, String callId,
                                 long cseq, BindingChange.Kind change) implements AccountingRecord {

    public RegistrationRecord {
        Objects.requireNonNull(at, "at");
        at = at.truncatedTo(ChronoUnit.MILLIS);
        requireFit(node, ColumnText.SHORT, "node");
        requireFit(aor, ColumnText.LONG, "aor");
        requireFit(contact, ColumnText.LONG, "contact");
        requireFit(callId, ColumnText.LONG, "callId");
        Objects.requireNonNull(change, "change");
        if (expires < 0 || expires > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("expires " + expires + " is outside 0..2^32-1 seconds");
        }
        if (cseq < 0 || cseq > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("CSeq " + cseq + " is outside 0..2^32-1");
        }
    }

    /** The record of {@code change}, made by a REGISTER with {@code callId} and {@code cseq}, its text fitted. */
    public static RegistrationRecord of(Instant at, String node, String aor, BindingChange change, String callId,
                                        long cseq) {
        return new RegistrationRecord(at, ColumnText.fit(node, ColumnText.SHORT), ColumnText.fit(aor, ColumnText.LONG),
                ColumnText.fit(change.contact(), ColumnText.LONG), change.expires(),
                ColumnText.fit(callId, ColumnText.LONG), cseq, change.kind());
    }

    private static void requireFit(String text, int max, String name) {
        Objects.requireNonNull(text, name);
        if (!ColumnText.fits(text, max)) {
            throw new IllegalArgumentException(name + " must be at most " + max
                    + " characters without control characters");
        }
    }
}
