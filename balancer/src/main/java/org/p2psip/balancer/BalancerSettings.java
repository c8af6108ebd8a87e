package org.p2psip.balancer;

import org.p2psip.sip.wire.ConnectionLimits;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import org.p2psip.core.guard.RetryAfterSpread;
import org.p2psip.core.guard.SourceLimits;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.tls.TlsListener;

/**
 * Everything needed to start a balancer.
 *
 * @param sip            where to listen for SIP on UDP and TCP; port 0 picks a port free on both
 * @param nodes          the front nodes behind it
 * @param policy         how requests are spread
 * @param probeInterval  how often every node gets an OPTIONS
 * @param probeFailures  consecutive unanswered probes that take a node out
 * @param maxMessageBytes largest message accepted on any transport; a larger request gets 513 (RFC 3261
 *                       §21.5.14) when enough of it arrived to answer, and a stream is then closed
 * @param retryAfterSeconds the least Retry-After of the 503 sent when no node is up or every one sheds (RFC 3261
 *                       §21.5.4); each is drawn up to twice that ({@link RetryAfterSpread})
 * @param sourceLimits   per-source rate and ban ({@link SourceLimits#OFF}: none)
 * @param trustedSources addresses never limited, besides the nodes' own (which always are)
 * @param connections    idle timeout, message deadline and connection caps for TCP and TLS clients
 * @param tls            a TLS listener next to UDP and TCP, if any
 * @param advertise      the address written in the balancer's Via and Record-Route, if not the bound one
 * @param slowStart      how long a node that turns ready (after warming up, or after being down) takes to ramp
 *                       from {@value SlowStart#FIRST_SHARE} of its share of new requests to all of it
 *                       ({@link SlowStart}, issue 33); zero: at once
 * @param unauthenticatedRate requests without credentials passed on per second from all clients together
 *                       ({@link CredentialFreeBudgetHandler}); 0: no such budget
 * @param edgeChallenges what the balancer needs to challenge REGISTERs without credentials itself
 *                       ({@link EdgeChallengeHandler}); empty: they go to the nodes
 */
public record BalancerSettings(HostPort sip, List<HostPort> nodes, BalancingPolicy policy, Duration probeInterval,
                               int probeFailures, int maxMessageBytes, int retryAfterSeconds,
                               SourceLimits sourceLimits, Set<InetAddress> trustedSources,
                               ConnectionLimits connections, Optional<TlsListener> tls, Optional<HostPort> advertise,
                               Duration slowStart, int unauthenticatedRate, Optional<EdgeChallenges> edgeChallenges) {

    public static final BalancingPolicy DEFAULT_POLICY = BalancingPolicy.OWNER;
    public static final Duration DEFAULT_PROBE_INTERVAL = Duration.ofSeconds(1);
    public static final int DEFAULT_PROBE_FAILURES = 3;
    /** The largest UDP payload there is; a TCP message as large still fits the datagram it is forwarded in. */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 65_535;
    /** RFC 3261 §18.1.1: a message up to 1300 bytes may come over UDP, so no limit may be below it. */
    public static final int MIN_MAX_MESSAGE_BYTES = 1_300;
    public static final int DEFAULT_RETRY_AFTER = 5;
    /** As HAProxy's examples and Envoy's default slow-start window: long enough for a JVM's hot code to compile. */
    public static final Duration DEFAULT_SLOW_START = Duration.ofSeconds(10);
    /** As many nodes as {@link TransactionAffinity} can name. */
    public static final int MAX_NODES = TransactionAffinity.MAX_NODES;

    public BalancerSettings {
        Objects.requireNonNull(sip, "sip");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(probeInterval, "probeInterval");
        Objects.requireNonNull(sourceLimits, "sourceLimits");
        Objects.requireNonNull(connections, "connections");
        Objects.requireNonNull(tls, "tls");
        Objects.requireNonNull(advertise, "advertise");
        Objects.requireNonNull(slowStart, "slowStart");
        Objects.requireNonNull(edgeChallenges, "edgeChallenges");
        nodes = List.copyOf(nodes);
        trustedSources = Set.copyOf(trustedSources);
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("at least one node is needed");
        }
        if (nodes.size() > MAX_NODES) {
            throw new IllegalArgumentException("at most " + MAX_NODES + " nodes can be behind one balancer, not "
                    + nodes.size());
        }
        if (probeInterval.toMillis() < 10) {
            throw new IllegalArgumentException("the probe interval must be at least 10 ms");
        }
        if (probeFailures < 1) {
            throw new IllegalArgumentException("probe failures must be at least 1");
        }
        if (maxMessageBytes < MIN_MAX_MESSAGE_BYTES || maxMessageBytes > DEFAULT_MAX_MESSAGE_BYTES) {
            throw new IllegalArgumentException("the message size limit must be between " + MIN_MAX_MESSAGE_BYTES
                    + " and " + DEFAULT_MAX_MESSAGE_BYTES + " bytes, not " + maxMessageBytes);
        }
        if (retryAfterSeconds < 0 || retryAfterSeconds > RetryAfterSpread.MAX_SECONDS) {
            throw new IllegalArgumentException("Retry-After must be 0.." + RetryAfterSpread.MAX_SECONDS + " seconds");
        }
        if (unauthenticatedRate < 0) {
            throw new IllegalArgumentException("the budget for requests without credentials must be 0 (off) or more,"
                    + " not " + unauthenticatedRate);
        }
        if (slowStart.isNegative()) {
            throw new IllegalArgumentException("the slow-start window must not be negative");
        }
    }

    /** The settings before slow start had a setting: the default window. */
    public BalancerSettings(HostPort sip, List<HostPort> nodes, BalancingPolicy policy, Duration probeInterval,
                            int probeFailures, int maxMessageBytes, int retryAfterSeconds, SourceLimits sourceLimits,
                            Set<InetAddress> trustedSources, ConnectionLimits connections, Optional<TlsListener> tls,
                            Optional<HostPort> advertise) {
        this(sip, nodes, policy, probeInterval, probeFailures, maxMessageBytes, retryAfterSeconds, sourceLimits,
                trustedSources, connections, tls, advertise, DEFAULT_SLOW_START, 0, Optional.empty());
    }

    /** The settings of a balancer without TLS, with the default source and connection limits. */
    public BalancerSettings(HostPort sip, List<HostPort> nodes, BalancingPolicy policy, Duration probeInterval,
                            int probeFailures, int maxMessageBytes, int retryAfterSeconds) {
        this(sip, nodes, policy, probeInterval, probeFailures, maxMessageBytes, retryAfterSeconds,
                SourceLimits.DEFAULT, Set.of(), ConnectionLimits.DEFAULT, Optional.empty(), Optional.empty(),
                DEFAULT_SLOW_START, 0, Optional.empty());
    }

    /** Defaults for everything but the addresses and the policy. */
    public static BalancerSettings of(HostPort sip, List<HostPort> nodes, BalancingPolicy policy) {
        return new BalancerSettings(sip, nodes, policy, DEFAULT_PROBE_INTERVAL, DEFAULT_PROBE_FAILURES,
                DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_RETRY_AFTER);
    }

    public BalancerSettings withProbes(Duration interval, int failures) {
        return new BalancerSettings(sip, nodes, policy, interval, failures, maxMessageBytes, retryAfterSeconds,
                sourceLimits, trustedSources, connections, tls, advertise, slowStart, unauthenticatedRate,
                edgeChallenges);
    }

    public BalancerSettings withMaxMessageBytes(int bytes) {
        return new BalancerSettings(sip, nodes, policy, probeInterval, probeFailures, bytes, retryAfterSeconds,
                sourceLimits, trustedSources, connections, tls, advertise, slowStart, unauthenticatedRate,
                edgeChallenges);
    }

    /** Per-source limits, and addresses exempt from them besides the nodes. */
    public BalancerSettings withSources(SourceLimits limits, Collection<InetAddress> trusted) {
        return new BalancerSettings(sip, nodes, policy, probeInterval, probeFailures, maxMessageBytes,
                retryAfterSeconds, limits, Set.copyOf(trusted), connections, tls, advertise, slowStart,
                unauthenticatedRate, edgeChallenges);
    }

    public BalancerSettings withConnections(ConnectionLimits limits) {
        return new BalancerSettings(sip, nodes, policy, probeInterval, probeFailures, maxMessageBytes,
                retryAfterSeconds, sourceLimits, trustedSources, limits, tls, advertise, slowStart,
                unauthenticatedRate, edgeChallenges);
    }

    public BalancerSettings withTls(TlsListener listener) {
        return new BalancerSettings(sip, nodes, policy, probeInterval, probeFailures, maxMessageBytes,
                retryAfterSeconds, sourceLimits, trustedSources, connections, Optional.of(listener), advertise,
                slowStart, unauthenticatedRate, edgeChallenges);
    }

    /** The address written in the balancer's Via and Record-Route (a port of 0: the bound one). */
    public BalancerSettings withAdvertise(HostPort address) {
        return new BalancerSettings(sip, nodes, policy, probeInterval, probeFailures, maxMessageBytes,
                retryAfterSeconds, sourceLimits, trustedSources, connections, tls, Optional.of(address), slowStart,
                unauthenticatedRate, edgeChallenges);
    }

    /**
     * REGISTER, SUBSCRIBE, PUBLISH and MESSAGE requests without credentials
     * the balancer passes on per second from all clients together (bursts of
     * twice that); 0, the default, passes them all. For nodes that
     * authenticate: {@code cluster} sets it to its nodes' budgets summed.
     */
    public BalancerSettings withUnauthenticatedRate(int perSecond) {
        return new BalancerSettings(sip, nodes, policy, probeInterval, probeFailures, maxMessageBytes,
                retryAfterSeconds, sourceLimits, trustedSources, connections, tls, advertise, slowStart, perSecond,
                edgeChallenges);
    }

    /** Challenge REGISTERs without credentials at the balancer, as the nodes would ({@link EdgeChallengeHandler}). */
    public BalancerSettings withEdgeChallenges(EdgeChallenges challenges) {
        return new BalancerSettings(sip, nodes, policy, probeInterval, probeFailures, maxMessageBytes,
                retryAfterSeconds, sourceLimits, trustedSources, connections, tls, advertise, slowStart,
                unauthenticatedRate, Optional.of(challenges));
    }

    /**
     * How long a node that turns ready ramps up to its full share of new
     * requests; {@link Duration#ZERO} turns slow start off.
     */
    public BalancerSettings withSlowStart(Duration window) {
        return new BalancerSettings(sip, nodes, policy, probeInterval, probeFailures, maxMessageBytes,
                retryAfterSeconds, sourceLimits, trustedSources, connections, tls, advertise, window,
                unauthenticatedRate, edgeChallenges);
    }
}
