package org.p2psip.servlet.node;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

import org.p2psip.core.guard.CredentialFreeBudget;
import org.p2psip.core.guard.SourceLimits;
import org.p2psip.sip.wire.ConnectionLimits;

/**
 * How a node defends itself against floods, overload and connection abuse
 * (issue 14; DESIGN.md, "Trust model").
 *
 * @param sources           per-source rate and ban (Kamailio's pike); {@link SourceLimits#OFF} disables it
 * @param trustedSources    addresses never limited: the cluster's balancer and nodes
 * @param overloadDelay     how long the oldest queued message may wait before new requests get 503
 * @param overloadQueue     how many messages may wait at most before new requests get 503
 * @param retryAfter        the Retry-After an overloaded node answers with
 * @param connections       idle timeout, message deadline and caps of the TCP and TLS connections peers open;
 *                          the same limits the balancer applies
 * @param maxMessageBytes   the largest SIP message accepted (UDP, TCP and TLS); larger ones get 513
 * @param maxRegistrations  values this node holds at most; REGISTERs that would add a binding get 503 past it
 * @param unauthenticatedRate REGISTER, SUBSCRIBE, PUBLISH and MESSAGE requests without credentials this node
 *                          answers per second from all sources together when it authenticates (bursts of twice
 *                          that); the rest are dropped unanswered ({@link CredentialFreeBudget}); 0 turns it off
 */
public record ProtectionSettings(SourceLimits sources, Set<InetAddress> trustedSources, Duration overloadDelay,
                                 int overloadQueue, Duration retryAfter, ConnectionLimits connections,
                                 int maxMessageBytes, int maxRegistrations, int unauthenticatedRate) {

    /** The largest UDP payload there is (RFC 768 length field minus the UDP header). */
    public static final int MAX_DATAGRAM_BYTES = 65_535;

    public static final ProtectionSettings DEFAULT = new ProtectionSettings(SourceLimits.DEFAULT, Set.of(),
            Duration.ofMillis(200), 20_000, Duration.ofSeconds(2), ConnectionLimits.DEFAULT, MAX_DATAGRAM_BYTES,
            1_000_000, 2_000);

    public ProtectionSettings {
        Objects.requireNonNull(sources, "sources");
        Objects.requireNonNull(connections, "connections");
        trustedSources = Set.copyOf(trustedSources);
        positive(overloadDelay, "the overload delay");
        positive(retryAfter, "Retry-After");
        if (overloadQueue < 1) {
            throw new IllegalArgumentException("the overload queue bound must be at least 1, not " + overloadQueue);
        }
        if (maxMessageBytes < 1_300 || maxMessageBytes > MAX_DATAGRAM_BYTES) {
            // RFC 3261 §18.1.1: anything up to 1300 bytes may come over UDP, so less cannot be refused
            throw new IllegalArgumentException("the message size limit must be between 1300 and "
                    + MAX_DATAGRAM_BYTES + " bytes, not " + maxMessageBytes);
        }
        if (maxRegistrations < 1) {
            throw new IllegalArgumentException("the registration cap must be at least 1, not " + maxRegistrations);
        }
        if (unauthenticatedRate < 0) {
            throw new IllegalArgumentException("the budget for requests without credentials must be 0 (off) or more,"
                    + " not " + unauthenticatedRate);
        }
    }

    public ProtectionSettings withSources(SourceLimits newSources, Set<InetAddress> trusted) {
        return new ProtectionSettings(newSources, trusted, overloadDelay, overloadQueue, retryAfter, connections,
                maxMessageBytes, maxRegistrations, unauthenticatedRate);
    }

    public ProtectionSettings withOverload(Duration delay, int queue, Duration newRetryAfter) {
        return new ProtectionSettings(sources, trustedSources, delay, queue, newRetryAfter, connections,
                maxMessageBytes, maxRegistrations, unauthenticatedRate);
    }

    public ProtectionSettings withConnections(Duration idle, Duration deadline, int max, int perSource) {
        return new ProtectionSettings(sources, trustedSources, overloadDelay, overloadQueue, retryAfter,
                new ConnectionLimits(idle, deadline, max, perSource), maxMessageBytes, maxRegistrations,
                unauthenticatedRate);
    }

    public ProtectionSettings withLimits(int messageBytes, int registrations) {
        return new ProtectionSettings(sources, trustedSources, overloadDelay, overloadQueue, retryAfter, connections,
                messageBytes, registrations, unauthenticatedRate);
    }

    /** The same settings with another budget for requests without credentials (0: off). */
    public ProtectionSettings withUnauthenticatedRate(int perSecond) {
        return new ProtectionSettings(sources, trustedSources, overloadDelay, overloadQueue, retryAfter, connections,
                maxMessageBytes, maxRegistrations, perSecond);
    }

    private static void positive(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(what + " must be positive");
        }
    }
}
