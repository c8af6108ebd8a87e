package org.p2psip.core.location;

import java.util.Locale;
import java.util.OptionalInt;

/**
 * An address-of-record in the canonical form of RFC 3261 §10.3 step 5: the
 * To URI with every parameter and header removed and escapes resolved. The
 * scheme is not part of the key, so {@code sip:} and {@code sips:} name the
 * same user; the port is, because §19.1.4 makes {@code host} and
 * {@code host:5060} different URIs.
 *
 * <p>The user is unescaped as step 5 asks ({@code %61lice} and {@code alice},
 * {@code a%3Bb} and {@code a;b} are one AOR) except that {@code %} itself and
 * octets that are not UTF-8 stay as {@code %HH}, so that two users that differ
 * never share a key.
 */
public record AddressOfRecord(String user, String host, OptionalInt port) {

    public AddressOfRecord {
        if (user == null) {
            user = "";
        }
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("address-of-record has no host");
        }
        host = host.toLowerCase(Locale.ROOT);
    }

    /** Parses a SIP or SIPS URI and canonicalises it. */
    public static AddressOfRecord parse(String uri) {
        return SipUri.parse(uri).toAddressOfRecord();
    }

    /**
     * The DHT key of this AOR: {@code user@host[:port]}, unescaped. Stable
     * across releases; every node must compute the same key.
     */
    public String key() {
        StringBuilder b = new StringBuilder();
        if (!user.isEmpty()) {
            b.append(user).append('@');
        }
        b.append(host.indexOf(':') >= 0 ? "[" + host + "]" : host);
        port.ifPresent(p -> b.append(':').append(p));
        return b.toString();
    }

    @Override
    public String toString() {
        return "sip:" + key();
    }
}
