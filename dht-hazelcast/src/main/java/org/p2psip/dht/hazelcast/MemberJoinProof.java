package org.p2psip.dht.hazelcast;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.p2psip.core.overlay.OverlaySecret;

/**
 * What a hazelcast member shows the cluster's master to be let in: a member
 * attribute holding HMAC-SHA256 under a key derived from the cluster secret,
 * over the cluster name and the address the member claims. Hazelcast's
 * open-source edition checks nothing but the cluster name, which crosses the
 * wire in clear; the proof does not give the secret away, and because it
 * names the member's own address, a copy sniffed from one member's join
 * admits nobody who claims another address.
 *
 * <p>It is not a session: it does not expire and the member traffic itself
 * stays in clear (encryption between members is an Enterprise feature), so
 * a watcher of the overlay network still reads the values that travel, and
 * one who could also take over a departed member's address could present
 * that member's proof. Keep the overlay network private; the proof stops
 * strangers from joining, and every refusal is logged by the master.
 */
final class MemberJoinProof {

    /** The member attribute that carries the proof. */
    static final String ATTRIBUTE = "p2psip.join-proof";

    private static final String LABEL = "p2psip hazelcast member join";

    private final OverlaySecret secret;
    private final String clusterName;

    MemberJoinProof(OverlaySecret secret, String clusterName) {
        this.secret = Objects.requireNonNull(secret, "secret");
        this.clusterName = Objects.requireNonNull(clusterName, "clusterName");
    }

    /** The attribute value for a member that claims {@code address} ({@code IP:PORT}). */
    String proofFor(String address) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(mac(address));
    }

    /**
     * Why a joiner claiming {@code address} with {@code attributes} may not
     * join, or empty when its proof holds.
     */
    Optional<String> refusal(String address, Map<String, String> attributes) {
        String shown = attributes == null ? null : attributes.get(ATTRIBUTE);
        if (shown == null) {
            return Optional.of("it shows no join proof (not a p2psip node, or one without --cluster-secret)");
        }
        byte[] presented;
        try {
            presented = Base64.getUrlDecoder().decode(shown);
        } catch (IllegalArgumentException e) {
            return Optional.of("its join proof is not valid base64");
        }
        if (!MessageDigest.isEqual(mac(address), presented)) {
            return Optional.of("its join proof does not hold for " + address
                    + " (another cluster secret, or a proof copied from another member)");
        }
        return Optional.empty();
    }

    private byte[] mac(String address) {
        return secret.derive(LABEL, clusterName.getBytes(StandardCharsets.UTF_8), new byte[] {0},
                address.getBytes(StandardCharsets.UTF_8));
    }
}
