package org.p2psip.core.location;

/**
 * Operator settings of the registrar.
 *
 * @param minExpires      shortest accepted non-zero expiry; shorter gives 423 (RFC 3261 §10.3 step 7)
 * @param defaultExpires  expiry when the request names none
 * @param maxExpires      longer requested expiries are cut to this
 * @param maxContacts     most bindings one AOR may hold after an update
 */
public record RegistrarPolicy(long minExpires, long defaultExpires, long maxExpires, int maxContacts) {

    /** 60 s minimum, 3600 s default (RFC 3261 §10.2.1.1), 86400 s maximum, 10 contacts. */
    /** The largest delta-seconds a SIP Expires can carry (RFC 3261 §20.19). */
    public static final long MAX_DELTA_SECONDS = 0xFFFF_FFFFL;

    public static final RegistrarPolicy DEFAULT = new RegistrarPolicy(60, 3600, 86_400, 10);

    public RegistrarPolicy {
        if (minExpires < 1) {
            throw new IllegalArgumentException("min-expires must be at least 1 second");
        }
        if (defaultExpires < minExpires || defaultExpires > maxExpires) {
            throw new IllegalArgumentException("default expiry must lie between min-expires and max-expires");
        }
        if (maxExpires > MAX_DELTA_SECONDS) {
            throw new IllegalArgumentException("max-expires must not exceed 2^32-1 seconds");
        }
        if (maxContacts < 1) {
            throw new IllegalArgumentException("max-contacts must be at least 1");
        }
    }
}
