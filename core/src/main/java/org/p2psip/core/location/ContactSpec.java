package org.p2psip.core.location;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One Contact header field value of a REGISTER, as the registrar sees it
 * (RFC 3261 §10.2.1): either the wildcard {@code *} or a URI with its
 * {@code expires}, {@code q} and other contact parameters.
 *
 * @param uri      the contact URI, or {@code *} for the wildcard
 * @param expires  the {@code expires} contact parameter in seconds, if given
 * @param q        q in thousandths (0..1000), or {@link Binding#Q_UNSPECIFIED}
 * @param params   every other contact parameter, names lower-cased, in order
 */
public record ContactSpec(String uri, OptionalLong expires, int q, Map<String, String> params) {

    public static final String WILDCARD_URI = "*";

    public ContactSpec {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(expires, "expires");
        if (expires.isPresent() && expires.getAsLong() < 0) {
            throw new IllegalArgumentException("contact expires must not be negative");
        }
        if (q != Binding.Q_UNSPECIFIED && (q < 0 || q > 1000)) {
            throw new IllegalArgumentException("q must be between 0 and 1");
        }
        params = copyParams(params);
    }

    /** The {@code Contact: *} of a remove-all request. */
    public static ContactSpec wildcard() {
        return new ContactSpec(WILDCARD_URI, OptionalLong.empty(), Binding.Q_UNSPECIFIED, Map.of());
    }

    /** A contact with no parameters. */
    public static ContactSpec of(String uri) {
        return new ContactSpec(uri, OptionalLong.empty(), Binding.Q_UNSPECIFIED, Map.of());
    }

    public boolean isWildcard() {
        return WILDCARD_URI.equals(uri);
    }

    /** The {@code +sip.instance} parameter without its quotes (RFC 5626 §4.1). */
    public Optional<String> instanceId() {
        String v = params.get("+sip.instance");
        if (v == null || v.isEmpty()) {
            return Optional.empty();
        }
        if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
            v = v.substring(1, v.length() - 1);
        }
        return Optional.of(v);
    }

    /** The {@code reg-id} parameter (RFC 5626 §4.2); absent when missing or not a positive number. */
    public OptionalInt regId() {
        String v = params.get("reg-id");
        if (v == null) {
            return OptionalInt.empty();
        }
        try {
            int id = Integer.parseInt(v);
            return id > 0 ? OptionalInt.of(id) : OptionalInt.empty();
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    /**
     * Whether this contact names the same binding as {@code b}: the same
     * instance and reg-id when both carry them (RFC 5626 §6), otherwise
     * equivalent URIs by RFC 3261 §19.1.4.
     */
    public boolean sameBindingAs(Binding b) {
        Optional<String> instance = instanceId();
        OptionalInt reg = regId();
        if (instance.isPresent() && reg.isPresent() && b.instanceId().isPresent() && b.regId().isPresent()) {
            return instance.equals(b.instanceId()) && reg.equals(b.regId());
        }
        return SipUri.parse(uri).equivalentTo(b.contactUri());
    }

    static Map<String, String> copyParams(Map<String, String> params) {
        Map<String, String> copy = new LinkedHashMap<>();
        if (params != null) {
            params.forEach((k, v) -> copy.put(k.toLowerCase(Locale.ROOT), v == null ? "" : v));
        }
        return Collections.unmodifiableMap(copy);
    }
}
