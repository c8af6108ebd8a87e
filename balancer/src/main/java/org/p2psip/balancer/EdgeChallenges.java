package org.p2psip.balancer;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.StatelessNonces;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.net.HostPort;

/**
 * What the balancer needs to answer a REGISTER without credentials as the
 * nodes behind it would (RFC 3261 §22.4, RFC 8760 §2.4): the domains they
 * serve (the realm is the AOR's domain), the algorithms they offer in
 * their order, and nonces under the cluster secret, which every node
 * accepts since nonces are stateless HMACs ({@link StatelessNonces}).
 *
 * @param domains    the nodes' served domains, the default first, and the addresses that mean it; a REGISTER for
 *                   anything else goes to a node, which refuses it
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

    /**
     * The same, with {@code addresses} also meaning the default domain: the
     * balancer's own, which phones that know no domain name register at, and
     * which the nodes behind it name in their {@code --alias}.
     */
    public EdgeChallenges alsoAt(HostPort... addresses) {
        List<HostPort> aliases = new ArrayList<>(domains.aliases());
        aliases.addAll(List.of(addresses));
        return new EdgeChallenges(new ServedDomains(domains.domains(), aliases), algorithms, nonces);
    }
}
