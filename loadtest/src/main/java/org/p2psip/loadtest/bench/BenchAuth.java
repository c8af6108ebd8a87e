package org.p2psip.loadtest.bench;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.p2psip.core.net.HostPort;

/**
 * How the load generator authenticates (RFC 3261 §22): as users
 * {@code bench0 .. bench(N-1)} of the target's domain for the flows, and
 * {@code benchcallee0 ..} for the built-in UAS's AORs, all with one
 * password. Each lane keeps the nonce of the last challenge and sends its
 * credentials with every later request, counting {@code nc} up, as a phone
 * does on refresh; a 401 or 407 is answered once.
 *
 * @param required whether to send credentials at all
 * @param users    how many {@code bench} users there are; flow {@code i} acts as user {@code i mod users}
 * @param password the password of every bench user
 * @param admin    admin endpoints to provision the users through before the run; empty: they exist already
 * @param secret   the cluster secret those endpoints want
 */
public record BenchAuth(boolean required, int users, String password, List<HostPort> admin, Optional<String> secret) {

    /** Users provisioned by default: the trust issue's bulk-import figure. */
    public static final int DEFAULT_USERS = 100_000;
    public static final String DEFAULT_PASSWORD = "p2psip-bench";
    public static final String USER_PREFIX = "bench";
    public static final String CALLEE_PREFIX = "benchcallee";

    /** No credentials: for a target running {@code --auth none}. */
    public static final BenchAuth NONE = new BenchAuth(false, DEFAULT_USERS, DEFAULT_PASSWORD, List.of(), Optional.empty());

    public BenchAuth {
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(secret, "secret");
        admin = List.copyOf(admin);
        if (users < 1) {
            throw new IllegalArgumentException("users must be at least 1");
        }
        if (password.isEmpty()) {
            throw new IllegalArgumentException("the bench password must not be empty");
        }
        if (!admin.isEmpty() && secret.isEmpty()) {
            throw new IllegalArgumentException("provisioning through an admin endpoint needs the cluster secret");
        }
    }

    /** The same users, taken to exist already: a run with this does not provision them again. */
    public BenchAuth provisioned() {
        return new BenchAuth(required, users, password, List.of(), secret);
    }

    /** Authentication as {@code users} bench users, provisioned through {@code admin} when it is not empty. */
    public static BenchAuth digest(int users, String password, List<HostPort> admin, Optional<String> secret) {
        return new BenchAuth(true, users, password, admin, secret);
    }
}
