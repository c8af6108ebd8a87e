package org.p2psip.core.location;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

import org.p2psip.core.net.HostPort;

/**
 * One contact bound to an address-of-record (RFC 3261 §10.3 step 7), with
 * what the registrar must remember about it.
 *
 * @param contact     the contact URI as the UA wrote it (inside the angle brackets)
 * @param params      contact parameters other than {@code q} and {@code expires}, in order
 * @param expiresAt   when the binding lapses; an expired binding is never returned
 * @param q           the q-value in thousandths (0..1000), or {@link #Q_UNSPECIFIED}
 * @param callId      Call-ID of the REGISTER that last wrote this binding
 * @param cseq        CSeq number of that REGISTER
 * @param instanceId  the {@code +sip.instance} contact parameter (RFC 5626 §4.1), if any
 * @param regId       the {@code reg-id} contact parameter (RFC 5626 §4.2), if any
 * @param path        Path header values of the REGISTER (RFC 3327), outermost first
 * @param source      the address the REGISTER came from
 * @param transport   the transport it came over ({@code UDP}, {@code TCP}, ...)
 */
public record Binding(String contact, Map<String, String> params, Instant expiresAt, int q,
                      String callId, long cseq, Optional<String> instanceId, OptionalInt regId,
                      List<String> path, HostPort source, String transport) {

    /** No q parameter was given; forwarding ranks such contacts as q=1.0. */
    public static final int Q_UNSPECIFIED = -1;

    public Binding {
        Objects.requireNonNull(contact, "contact");
        Objects.requireNonNull(expiresAt, "expiresAt");
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(transport, "transport");
        if (q != Q_UNSPECIFIED && (q < 0 || q > 1000)) {
            throw new IllegalArgumentException("q must be 0..1000 thousandths, not " + q);
        }
        if (cseq < 0 || cseq > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("CSeq " + cseq + " is outside 0..2^32-1");
        }
        params = ContactSpec.copyParams(params);
        instanceId = Objects.requireNonNull(instanceId, "instanceId");
        regId = Objects.requireNonNull(regId, "regId");
        if (regId.isPresent() && regId.getAsInt() < 1) {
            throw new IllegalArgumentException("reg-id must be positive, not " + regId.getAsInt());
        }
        path = List.copyOf(path);
    }

    /** The contact URI parsed, for §19.1.4 comparison. */
    public SipUri contactUri() {
        return SipUri.parse(contact);
    }

    /** The q-value used to order forking: unspecified counts as 1.0. */
    public int effectiveQ() {
        return q == Q_UNSPECIFIED ? 1000 : q;
    }

    /** True when this binding has lapsed at {@code now}. */
    public boolean expiredAt(Instant now) {
        return !expiresAt.isAfter(now);
    }

    /** Seconds left at {@code now}, rounded up, never negative. */
    public long secondsLeft(Instant now) {
        long millis = expiresAt.toEpochMilli() - now.toEpochMilli();
        return millis <= 0 ? 0 : (millis + 999) / 1000;
    }
}
