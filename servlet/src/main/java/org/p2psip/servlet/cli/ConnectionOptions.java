package org.p2psip.servlet.cli;

import java.time.Duration;

import org.p2psip.balancer.BalancerSettings;
import org.p2psip.sip.wire.ConnectionLimits;

import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** TCP and TLS connection limits ({@link ConnectionLimits}) and the message size limit. */
final class ConnectionOptions {

    @Option(names = "--idle-timeout", paramLabel = "SECONDS",
            description = "A client connection that sends nothing for this long is closed; a CRLF keep-alive "
                    + "(RFC 5626) counts. Default: ${DEFAULT-VALUE}.")
    long idleSeconds = ConnectionLimits.DEFAULT_IDLE_TIMEOUT.toSeconds();

    @Option(names = "--message-deadline", paramLabel = "SECONDS",
            description = "A message (and a TLS handshake) must arrive whole within this long of its first "
                    + "byte, and a connection's first message within this long of its start, or the connection is "
                    + "closed: slow or silent senders cannot hold connections. Default: ${DEFAULT-VALUE}.")
    long deadlineSeconds = ConnectionLimits.DEFAULT_MESSAGE_DEADLINE.toSeconds();

    @Option(names = "--max-connections", paramLabel = "N",
            description = "Client connections (TCP and TLS together) open at once; more are closed on accept. "
                    + "Keep it below the process's open-file limit. Default: ${DEFAULT-VALUE}.")
    int max = ConnectionLimits.DEFAULT_MAX_CONNECTIONS;

    @Option(names = "--max-connections-per-source", paramLabel = "N",
            description = "Client connections from one IP address at once; more are closed on accept. "
                    + "Default: ${DEFAULT-VALUE}.")
    int perSource = ConnectionLimits.DEFAULT_MAX_CONNECTIONS_PER_SOURCE;

    @Option(names = "--max-connections-per-network", paramLabel = "N",
            description = "Client connections from one network (an IPv4 /24, an IPv6 /64) at once. When this or "
                    + "--max-connections is reached, the oldest connection that has not sent a whole message yet "
                    + "is closed to make room; when every one has, the new one is closed on accept. Default: "
                    + ConnectionLimits.DEFAULT_MAX_CONNECTIONS_PER_NETWORK
                    + ", or --max-connections-per-source when that is higher.")
    int perNetwork;

    @Option(names = "--max-message-size", paramLabel = "BYTES",
            description = "Largest SIP message accepted on any transport, " + BalancerSettings.MIN_MAX_MESSAGE_BYTES
                    + " to 65535. A larger request is answered 513 Message Too Large when its headers arrived, "
                    + "and a TCP or TLS connection is then closed. Default: ${DEFAULT-VALUE}.")
    int maxMessageBytes = BalancerSettings.DEFAULT_MAX_MESSAGE_BYTES;

    int maxMessageBytes(CommandLine cl) {
        if (maxMessageBytes < BalancerSettings.MIN_MAX_MESSAGE_BYTES
                || maxMessageBytes > BalancerSettings.DEFAULT_MAX_MESSAGE_BYTES) {
            throw new ParameterException(cl, "--max-message-size must be between "
                    + BalancerSettings.MIN_MAX_MESSAGE_BYTES + " and " + BalancerSettings.DEFAULT_MAX_MESSAGE_BYTES
                    + " bytes, not " + maxMessageBytes);
        }
        return maxMessageBytes;
    }

    ConnectionLimits limits() {
        if (idleSeconds < 1 || deadlineSeconds < 1) {
            throw new IllegalArgumentException((idleSeconds < 1 ? "--idle-timeout" : "--message-deadline")
                    + " must be at least 1 second");
        }
        return new ConnectionLimits(Duration.ofSeconds(idleSeconds), Duration.ofSeconds(deadlineSeconds), max,
                perSource, perNetwork == 0 ? Math.max(perSource, ConnectionLimits.DEFAULT_MAX_CONNECTIONS_PER_NETWORK)
                        : perNetwork);
    }
}
