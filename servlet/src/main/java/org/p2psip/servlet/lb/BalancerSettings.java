package org.p2psip.servlet.lb;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import org.p2psip.core.net.HostPort;

/**
 * Everything needed to start a balancer.
 *
 * @param sip            where to listen for SIP on UDP and TCP; port 0 picks a port free on both
 * @param nodes          the front nodes behind it
 * @param policy         how requests are spread
 * @param probeInterval  how often every node gets an OPTIONS
 * @param probeFailures  consecutive unanswered probes that take a node out
 * @param maxMessageBytes largest TCP message accepted before the connection is closed
 * @param retryAfterSeconds the Retry-After of the 503 sent when no node is up (RFC 3261 §21.5.4)
 */
public record BalancerSettings(HostPort sip, List<HostPort> nodes, BalancingPolicy policy, Duration probeInterval,
                               int probeFailures, int maxMessageBytes, int retryAfterSeconds) {

    public static final BalancingPolicy DEFAULT_POLICY = BalancingPolicy.CALL_ID;
    public static final Duration DEFAULT_PROBE_INTERVAL = Duration.ofSeconds(1);
    public static final int DEFAULT_PROBE_FAILURES = 3;
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 65_535;
    public static final int DEFAULT_RETRY_AFTER = 5;

    public BalancerSettings {
        Objects.requireNonNull(sip, "sip");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(probeInterval, "probeInterval");
        nodes = List.copyOf(nodes);
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("at least one node is needed");
        }
        if (probeInterval.toMillis() < 10) {
            throw new IllegalArgumentException("the probe interval must be at least 10 ms");
        }
        if (probeFailures < 1) {
            throw new IllegalArgumentException("probe failures must be at least 1");
        }
        if (maxMessageBytes < 1024) {
            throw new IllegalArgumentException("the message limit must be at least 1024 bytes");
        }
        if (retryAfterSeconds < 0) {
            throw new IllegalArgumentException("Retry-After must not be negative");
        }
    }

    /** Defaults for everything but the addresses and the policy. */
    public static BalancerSettings of(HostPort sip, List<HostPort> nodes, BalancingPolicy policy) {
        return new BalancerSettings(sip, nodes, policy, DEFAULT_PROBE_INTERVAL, DEFAULT_PROBE_FAILURES,
                DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_RETRY_AFTER);
    }

    public BalancerSettings withProbes(Duration interval, int failures) {
        return new BalancerSettings(sip, nodes, policy, interval, failures, maxMessageBytes, retryAfterSeconds);
    }
}
