package org.p2psip.sip.wire;

import java.time.Duration;
import java.util.Objects;

/**
 * What the balancer allows a client's TCP or TLS connection. A connection
 * costs a file descriptor and buffers whether or not it carries traffic, so
 * an edge that does not bound them is the easiest SIP server to take down
 * (the slowloris and connection-exhaustion attacks): idle connections are
 * closed, a message that starts arriving must finish within a deadline, and
 * the number of connections is capped in all and per source address.
 *
 * @param idleTimeout       a connection that sends nothing for this long is closed; a CRLF keep-alive
 *                          (RFC 5626 §4.4.1) counts as something
 * @param messageDeadline   a message must arrive whole within this long of its first byte; also the TLS
 *                          handshake's deadline
 * @param maxConnections    client connections open at once; beyond, new ones are closed on accept. Each
 *                          takes a file descriptor, and this host caps a process at 20,000
 * @param maxConnectionsPerSource client connections from one IP address at once; a large NAT has many
 *                          phones behind one address, so this is generous
 * @param maxConnectionsPerNetwork client connections from one network at once (an IPv4 /24, an IPv6 /64):
 *                          one host with many addresses is still one host
 */
public record ConnectionLimits(Duration idleTimeout, Duration messageDeadline, int maxConnections,
                               int maxConnectionsPerSource, int maxConnectionsPerNetwork) {

    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(300);
    public static final Duration DEFAULT_MESSAGE_DEADLINE = Duration.ofSeconds(10);
    public static final int DEFAULT_MAX_CONNECTIONS = 16_000;
    public static final int DEFAULT_MAX_CONNECTIONS_PER_SOURCE = 1_000;
    public static final int DEFAULT_MAX_CONNECTIONS_PER_NETWORK = 4_000;

    public static final ConnectionLimits DEFAULT = new ConnectionLimits(DEFAULT_IDLE_TIMEOUT,
            DEFAULT_MESSAGE_DEADLINE, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS_PER_SOURCE,
            DEFAULT_MAX_CONNECTIONS_PER_NETWORK);

    /** Limits whose per-network cap is the default's, or the per-source one when that is higher. */
    public ConnectionLimits(Duration idleTimeout, Duration messageDeadline, int maxConnections,
                            int maxConnectionsPerSource) {
        this(idleTimeout, messageDeadline, maxConnections, maxConnectionsPerSource,
                Math.max(maxConnectionsPerSource, DEFAULT_MAX_CONNECTIONS_PER_NETWORK));
    }

    public ConnectionLimits {
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(messageDeadline, "messageDeadline");
        if (idleTimeout.toMillis() < 1) {
            throw new IllegalArgumentException("the idle timeout must be positive");
        }
        if (messageDeadline.toMillis() < 1) {
            throw new IllegalArgumentException("the message deadline must be positive");
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("the connection cap must be at least 1, not " + maxConnections);
        }
        if (maxConnectionsPerSource < 1) {
            throw new IllegalArgumentException("the per-source connection cap must be at least 1, not "
                    + maxConnectionsPerSource);
        }
        if (maxConnectionsPerNetwork < maxConnectionsPerSource) {
            throw new IllegalArgumentException("the per-network connection cap (" + maxConnectionsPerNetwork
                    + ") must be at least the per-source one (" + maxConnectionsPerSource + ")");
        }
    }
}
