package org.p2psip.servlet.proxy;

import java.util.Objects;
import java.util.Optional;

import org.p2psip.core.auth.DialogTokens;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.servlet.auth.DigestAuthenticator;

/**
 * What the proxy needs to decide whom it forwards for.
 *
 * @param domains            the served domains and their aliases
 * @param authenticator      checks Proxy-Authorization; empty with {@code --auth none}
 * @param dialogTokens       signs and checks this cluster's Record-Route values
 * @param maxBranches        most targets one request forks to
 * @param maxBranchesPerHost most of those at one host
 */
public record ProxyTrust(ServedDomains domains, Optional<DigestAuthenticator> authenticator,
                         DialogTokens dialogTokens, int maxBranches, int maxBranchesPerHost) {

    public ProxyTrust {
        Objects.requireNonNull(domains, "domains");
        Objects.requireNonNull(authenticator, "authenticator");
        Objects.requireNonNull(dialogTokens, "dialogTokens");
        if (maxBranches < 1 || maxBranchesPerHost < 1) {
            throw new IllegalArgumentException("branch limits must be at least 1");
        }
    }
}
