package org.p2psip.servlet.stack;

import java.time.Duration;

/**
 * What a node allows its TCP connections.
 *
 * @param idleTimeout     a connection without traffic for this long is closed
 * @param messageDeadline a message must arrive whole within this long of its first byte
 * @param max             connections open at once
 * @param perSource       connections from one address
 */
public record ConnectionLimits(Duration idleTimeout, Duration messageDeadline, int max, int perSource) {

    static final ConnectionLimits UNLIMITED = new ConnectionLimits(Duration.ofDays(1), Duration.ofDays(1),
            Integer.MAX_VALUE, Integer.MAX_VALUE);

    public ConnectionLimits {
        if (idleTimeout.isNegative() || idleTimeout.isZero() || messageDeadline.isNegative()
                || messageDeadline.isZero()) {
            throw new IllegalArgumentException("connection timeouts must be positive");
        }
        if (max < 1 || perSource < 1) {
            throw new IllegalArgumentException("connection caps must be at least 1");
        }
    }
}
