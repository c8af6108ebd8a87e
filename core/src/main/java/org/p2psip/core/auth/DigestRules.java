package org.p2psip.core.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;

import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.location.SipUri;

/**
 * Checking a digest response (RFC 3261 §22.4, RFC 7616 §3.4, RFC 8760) as
 * pure functions: everything they need — the stored credentials, what the
 * nonce check found, the time — comes in as arguments.
 *
 * <p>Only {@code qop=auth} is offered. A response without qop (the RFC 2069
 * form some old phones still send) is accepted, but its nonce can be used
 * once only: it counts as nonce count 1.
 */
public final class DigestRules {

    /** Stands in for the HA1 of a user who does not exist; no response ever matches its digest by chance. */
    private static final String UNKNOWN_HA1 = "-";

    private DigestRules() {
    }

    /**
     * The request-digest of RFC 7616 §3.4.1 for {@code c}, from the stored
     * HA1 and the request's method (H(A2) with A2 = method ":" digest-uri).
     */
    public static String expectedResponse(DigestAlgorithm algorithm, String ha1, String method, DigestCredentials c) {
        String ha2 = algorithm.hash(method + ":" + c.uri());
        if (c.qop().isEmpty()) {
            return algorithm.hash(ha1 + ":" + c.nonce() + ":" + ha2);
        }
        return algorithm.hash(ha1 + ":" + c.nonce() + ":" + c.nc() + ":" + c.cnonce() + ":" + c.qop() + ":" + ha2);
    }

    /**
     * The algorithm {@code c} used: its {@code algorithm=}, or MD5 when it
     * names none (RFC 2617 §3.2.2); empty when that is not one offered.
     */
    public static Optional<DigestAlgorithm> algorithmOf(DigestCredentials c, List<DigestAlgorithm> offered) {
        Optional<DigestAlgorithm> a = c.algorithm().isEmpty() ? Optional.of(DigestAlgorithm.MD5)
                : DigestAlgorithm.byToken(c.algorithm());
        return a.filter(offered::contains);
    }

    /**
     * The AOR whose credentials {@code c} claims, for a challenge issued
     * in {@code realm}: {@code username@realm}, or the username itself when
     * a phone was configured with a whole address. Empty when it is not a
     * user of a served domain in that realm.
     */
    public static Optional<AddressOfRecord> claimedUser(DigestCredentials c, String realm, ServedDomains domains) {
        String username = c.username();
        if (username.isEmpty() || !c.realm().equalsIgnoreCase(realm)) {
            return Optional.empty();
        }
        if (username.indexOf('@') < 0) {
            return Optional.of(new AddressOfRecord(username, realm.toLowerCase(Locale.ROOT), OptionalInt.empty()));
        }
        try {
            String uri = username.regionMatches(true, 0, "sip:", 0, 4) || username.regionMatches(true, 0, "sips:", 0, 5)
                    ? username : "sip:" + username;
            return domains.canonical(SipUri.parse(uri).toAddressOfRecord())
                    .filter(aor -> aor.host().equalsIgnoreCase(realm));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * Decides on {@code c}, a response to a challenge of this cluster in
     * {@code realm}, for a request with {@code method}.
     *
     * @param stored  the credentials of {@link #claimedUser}, empty when the user is unknown
     * @param nonce   what {@link StatelessNonces#check} said of {@code c.nonce()}
     * @param offered the algorithms this node offers
     */
    public static DigestVerdict verify(DigestCredentials c, String method, Optional<UserCredentials> stored,
                                       NonceStatus nonce, List<DigestAlgorithm> offered) {
        if (c.response().isEmpty() || c.uri().isEmpty() || c.nonce().isEmpty()) {
            return new DigestVerdict.Failed("incomplete credentials");
        }
        if (nonce instanceof NonceStatus.Invalid) {
            return new DigestVerdict.Failed("not a nonce of this cluster");
        }
        Optional<DigestAlgorithm> algorithm = algorithmOf(c, offered);
        if (algorithm.isEmpty()) {
            return new DigestVerdict.Failed("algorithm '" + c.algorithm() + "' not offered");
        }
        long nc;
        if (c.qop().isEmpty()) {
            if (!c.nc().isEmpty() || !c.cnonce().isEmpty()) {
                return new DigestVerdict.Failed("nc or cnonce without qop");
            }
            nc = 1;
        } else {
            if (!"auth".equalsIgnoreCase(c.qop())) {
                return new DigestVerdict.Failed("qop '" + c.qop() + "' not offered");
            }
            nc = NonceCountWindow.parse(c.nc());
            if (nc < 1 || c.cnonce().isEmpty()) {
                return new DigestVerdict.Failed("qop=auth without a valid nc and cnonce");
            }
        }
        Optional<String> ha1 = stored.flatMap(u -> u.ha1For(algorithm.get()));
        // An unknown user costs the same hashing as a known one, so timing does not tell them apart.
        String expected = expectedResponse(algorithm.get(), ha1.orElse(UNKNOWN_HA1), method, c);
        byte[] a = expected.getBytes(StandardCharsets.US_ASCII);
        byte[] b = c.response().toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII);
        boolean matches = MessageDigest.isEqual(a, b);
        if (ha1.isEmpty()) {
            return new DigestVerdict.Failed(stored.isEmpty() ? "unknown user"
                    : "no " + algorithm.get().token() + " credentials for this user");
        }
        if (!matches) {
            return new DigestVerdict.Failed("wrong response");
        }
        if (nonce instanceof NonceStatus.Expired) {
            return new DigestVerdict.Stale();
        }
        return new DigestVerdict.Verified(stored.get(), nc);
    }
}
