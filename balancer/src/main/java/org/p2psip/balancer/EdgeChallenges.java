package org.p2psip.balancer;

import java.util.List;
import java.util.Objects;

import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.StatelessNonces;
import org.p2psip.core.location.ServedDomains;

/**
 * What the balancer needs to answer a REGISTER without credentials as the
 * nodes behind it would (RFC 3261 §22.4, RFC 8760 §2.4): the domains they
 * serve (the realm is the AOR's domain), the algorithms they offer in
 * their order, and nonces under the cluster secret, which every node
 * accepts since nonces are stateless HMACs ({@link StatelessNonces}).
 *
 * @param domains    the nodes' served domains; a REGISTER for anything else goes to a node, which refuses it
 * @param algorithms the nodes' {@code --digest-algorithms}, most preferred first
 * @param nonces     nonces under the nodes' cluster secret
 */
public record EdgeChallenges(ServedDomains domains, List<DigestAlgorithm> algorithms, StatelessNonces nonces) {

    public EdgeChallenges {
        Objects.requireNonNull(domains, "domains");
        Objects.requireNonNull(nonces, "nonces");
        algorithms = List.copyOf(algorithms);
        if (algorithms.isEmpty()) {
            throw new IllegalArgumentException("a challenge offers at least one algorithm");
        }
    }
}
