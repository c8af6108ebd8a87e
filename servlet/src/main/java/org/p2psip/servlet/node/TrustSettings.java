package org.p2psip.servlet.node;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.net.HostPort;

/**
 * Whom a node serves and believes (DESIGN.md, "Trust model").
 *
 * @param domains            the served domains, the first the default; empty: the node's own host
 * @param aliases            further host:port values that mean the default domain (the balancer's,
 *                           the other nodes'); the node's own address always does
 * @param authRequired       whether REGISTERs and requests from local users must carry digest credentials
 * @param algorithms         digest algorithms offered, in order of preference (RFC 8760 §2.4)
 * @param nonceLifetime      how long a nonce stays fresh before {@code stale=true}
 * @param maxBranches        most targets one request is forked to (Kamailio's {@code max_branches})
 * @param maxBranchesPerHost most of those on any one host
 * @param clusterSecret      the secret nodes share for nonces, Record-Route tokens and the admin
 *                           endpoint; without one each node makes its own, so only it accepts its nonces
 * @param admin              where the admin endpoint listens, if anywhere
 * @param recordRoute        the cluster's front (the balancer) that Record-Route names instead of this node,
 *                           so a dialog's later requests reach any live node through it; empty: this node
 * @param recordRouteTls     the front's TLS address, named towards a side that uses TLS
 */
public record TrustSettings(List<String> domains, List<HostPort> aliases, boolean authRequired,
                            List<DigestAlgorithm> algorithms, Duration nonceLifetime, int maxBranches,
                            int maxBranchesPerHost, Optional<String> clusterSecret, Optional<HostPort> admin,
                            Optional<HostPort> recordRoute, Optional<HostPort> recordRouteTls) {

    /** SHA-256 and SHA-512-256 first, MD5 last for phones that know nothing else (RFC 8760 §2.4). */
    public static final List<DigestAlgorithm> DEFAULT_ALGORITHMS =
            List.of(DigestAlgorithm.SHA_256, DigestAlgorithm.SHA_512_256, DigestAlgorithm.MD5);
    public static final Duration DEFAULT_NONCE_LIFETIME = Duration.ofMinutes(5);
    public static final int DEFAULT_MAX_BRANCHES = 12;
    public static final int DEFAULT_MAX_BRANCHES_PER_HOST = 4;

    /** Authentication required, the node's own host as its domain, no shared secret, no admin endpoint. */
    public static final TrustSettings DEFAULT = new TrustSettings(List.of(), List.of(), true, DEFAULT_ALGORITHMS,
            DEFAULT_NONCE_LIFETIME, DEFAULT_MAX_BRANCHES, DEFAULT_MAX_BRANCHES_PER_HOST, Optional.empty(),
            Optional.empty(), Optional.empty(), Optional.empty());

    public TrustSettings {
        domains = List.copyOf(domains);
        aliases = List.copyOf(aliases);
        algorithms = List.copyOf(algorithms);
        Objects.requireNonNull(nonceLifetime, "nonceLifetime");
        Objects.requireNonNull(clusterSecret, "clusterSecret");
        Objects.requireNonNull(admin, "admin");
        Objects.requireNonNull(recordRoute, "recordRoute");
        Objects.requireNonNull(recordRouteTls, "recordRouteTls");
        if (algorithms.isEmpty()) {
            throw new IllegalArgumentException("at least one digest algorithm must be offered");
        }
        if (nonceLifetime.toSeconds() < 1) {
            throw new IllegalArgumentException("the nonce lifetime must be at least one second");
        }
        if (maxBranches < 1 || maxBranchesPerHost < 1) {
            throw new IllegalArgumentException("branch limits must be at least 1");
        }
        if (clusterSecret.isPresent() && clusterSecret.get().isEmpty()) {
            throw new IllegalArgumentException("the cluster secret must not be empty");
        }
    }

    /** No authentication, one served domain: what most integration tests of other behaviour want. */
    public static TrustSettings open(String domain) {
        return DEFAULT.withDomains(List.of(domain)).withAuthRequired(false);
    }

    public TrustSettings withDomains(List<String> newDomains) {
        return new TrustSettings(newDomains, aliases, authRequired, algorithms, nonceLifetime, maxBranches,
                maxBranchesPerHost, clusterSecret, admin, recordRoute, recordRouteTls);
    }

    public TrustSettings withAliases(List<HostPort> newAliases) {
        return new TrustSettings(domains, newAliases, authRequired, algorithms, nonceLifetime, maxBranches,
                maxBranchesPerHost, clusterSecret, admin, recordRoute, recordRouteTls);
    }

    public TrustSettings withAuthRequired(boolean required) {
        return new TrustSettings(domains, aliases, required, algorithms, nonceLifetime, maxBranches,
                maxBranchesPerHost, clusterSecret, admin, recordRoute, recordRouteTls);
    }

    public TrustSettings withAlgorithms(List<DigestAlgorithm> newAlgorithms) {
        return new TrustSettings(domains, aliases, authRequired, newAlgorithms, nonceLifetime, maxBranches,
                maxBranchesPerHost, clusterSecret, admin, recordRoute, recordRouteTls);
    }

    public TrustSettings withNonceLifetime(Duration lifetime) {
        return new TrustSettings(domains, aliases, authRequired, algorithms, lifetime, maxBranches,
                maxBranchesPerHost, clusterSecret, admin, recordRoute, recordRouteTls);
    }

    public TrustSettings withBranchLimits(int total, int perHost) {
        return new TrustSettings(domains, aliases, authRequired, algorithms, nonceLifetime, total, perHost,
                clusterSecret, admin, recordRoute, recordRouteTls);
    }

    public TrustSettings withClusterSecret(String secret) {
        return new TrustSettings(domains, aliases, authRequired, algorithms, nonceLifetime, maxBranches,
                maxBranchesPerHost, Optional.of(secret), admin, recordRoute, recordRouteTls);
    }

    public TrustSettings withAdmin(HostPort address) {
        return new TrustSettings(domains, aliases, authRequired, algorithms, nonceLifetime, maxBranches,
                maxBranchesPerHost, clusterSecret, Optional.of(address), recordRoute, recordRouteTls);
    }

    /** Record-Route names {@code front} (and {@code frontTls} towards TLS) instead of this node. */
    public TrustSettings withRecordRoute(HostPort front, Optional<HostPort> frontTls) {
        return new TrustSettings(domains, aliases, authRequired, algorithms, nonceLifetime, maxBranches,
                maxBranchesPerHost, clusterSecret, admin, Optional.of(front), frontTls);
    }
}
