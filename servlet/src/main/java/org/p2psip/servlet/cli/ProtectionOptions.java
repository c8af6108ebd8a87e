package org.p2psip.servlet.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.p2psip.core.guard.SourceLimits;
import org.p2psip.servlet.node.ProtectionSettings;

import picocli.CommandLine.Option;

/**
 * The flags that set a node's defences ({@link ProtectionSettings}), shared
 * by {@code node} and {@code cluster}.
 */
final class ProtectionOptions {

    private static final ProtectionSettings D = ProtectionSettings.DEFAULT;

    @Option(names = "--source-rate", paramLabel = "N",
            description = "Messages per second one source address may send on average (UDP datagrams, TCP "
                    + "messages and connections together); a source over it is banned. 0 turns the per-source "
                    + "limit off. Default: ${DEFAULT-VALUE}, which lets a large office NAT through.")
    int sourceRate = SourceLimits.DEFAULT.ratePerSecond();

    @Option(names = "--source-burst", paramLabel = "N",
            description = "Messages one source may send at once above its rate. Default: ${DEFAULT-VALUE}.")
    int sourceBurst = SourceLimits.DEFAULT.burst();

    @Option(names = "--source-ban", paramLabel = "SECONDS",
            description = "How long a source over its rate is ignored (its messages are dropped unanswered, its "
                    + "connections refused). Default: ${DEFAULT-VALUE}.")
    long sourceBanSeconds = SourceLimits.DEFAULT.ban().toSeconds();

    @Option(names = "--trusted-source", paramLabel = "ADDRESS", split = ",",
            description = "An address never rate-limited, repeatable: the balancer and the other nodes "
                    + "('cluster' passes them).")
    List<String> trustedSources = new ArrayList<>();

    @Option(names = "--overload-delay", paramLabel = "MILLIS",
            description = "When the oldest request waiting to be processed has waited this long, new requests "
                    + "are answered 503 with Retry-After instead of queued. Default: ${DEFAULT-VALUE}.")
    long overloadDelayMillis = D.overloadDelay().toMillis();

    @Option(names = "--retry-after", paramLabel = "SECONDS",
            description = "The Retry-After of an overloaded node's 503. Default: ${DEFAULT-VALUE}.")
    long retryAfterSeconds = D.retryAfter().toSeconds();

    @Option(names = "--idle-timeout", paramLabel = "SECONDS",
            description = "A TCP connection with no traffic (keep-alive CRLFs count) for this long is closed. "
                    + "Default: ${DEFAULT-VALUE}.")
    long idleTimeoutSeconds = D.idleTimeout().toSeconds();

    @Option(names = "--message-deadline", paramLabel = "SECONDS",
            description = "A message must arrive whole within this long of its first byte, or its TCP "
                    + "connection is closed. Default: ${DEFAULT-VALUE}.")
    long messageDeadlineSeconds = D.messageDeadline().toSeconds();

    @Option(names = "--max-connections", paramLabel = "N",
            description = "TCP connections peers may hold open at once. Default: ${DEFAULT-VALUE}.")
    int maxConnections = D.maxConnections();

    @Option(names = "--max-connections-per-source", paramLabel = "N",
            description = "TCP connections one address may hold open. Default: ${DEFAULT-VALUE}.")
    int maxConnectionsPerSource = D.maxConnectionsPerSource();

    @Option(names = "--max-message-size", paramLabel = "BYTES",
            description = "The largest SIP message accepted; larger ones get 513 Message Too Large. "
                    + "Default: ${DEFAULT-VALUE}.")
    int maxMessageBytes = D.maxMessageBytes();

    @Option(names = "--max-registrations", paramLabel = "N",
            description = "Bindings this node stores at most; REGISTERs that would add more get 503. "
                    + "Default: ${DEFAULT-VALUE}.")
    int maxRegistrations = D.maxRegistrations();

    /** The settings these flags describe, plus {@code extraTrusted}; a bad value is an IllegalArgumentException. */
    ProtectionSettings settings(Set<InetAddress> extraTrusted) {
        if (sourceRate < 0 || sourceBurst < 1 || sourceBanSeconds < 0) {
            throw new IllegalArgumentException("--source-rate must be 0 or more, --source-burst at least 1, "
                    + "--source-ban 0 or more");
        }
        SourceLimits limits = sourceRate == 0 ? SourceLimits.OFF
                : new SourceLimits(sourceRate, sourceBurst, Duration.ofSeconds(sourceBanSeconds),
                        SourceLimits.DEFAULT.maxSources());
        Set<InetAddress> trusted = new HashSet<>(extraTrusted);
        for (String address : trustedSources) {
            trusted.add(address(address));
        }
        return new ProtectionSettings(limits, trusted, Duration.ofMillis(overloadDelayMillis), D.overloadQueue(),
                Duration.ofSeconds(retryAfterSeconds), Duration.ofSeconds(idleTimeoutSeconds),
                Duration.ofSeconds(messageDeadlineSeconds), maxConnections, maxConnectionsPerSource, maxMessageBytes,
                maxRegistrations);
    }

    /** These settings as {@code node} flags, for {@code cluster} to hand to the nodes it starts. */
    List<String> nodeFlags() {
        List<String> flags = new ArrayList<>(List.of(
                "--source-rate", Integer.toString(sourceRate),
                "--source-burst", Integer.toString(sourceBurst),
                "--source-ban", Long.toString(sourceBanSeconds),
                "--overload-delay", Long.toString(overloadDelayMillis),
                "--retry-after", Long.toString(retryAfterSeconds),
                "--idle-timeout", Long.toString(idleTimeoutSeconds),
                "--message-deadline", Long.toString(messageDeadlineSeconds),
                "--max-connections", Integer.toString(maxConnections),
                "--max-connections-per-source", Integer.toString(maxConnectionsPerSource),
                "--max-message-size", Integer.toString(maxMessageBytes),
                "--max-registrations", Integer.toString(maxRegistrations)));
        for (String t : trustedSources) {
            flags.addAll(List.of("--trusted-source", t));
        }
        return flags;
    }

    private static InetAddress address(String text) {
        String literal = text.trim();
        if (literal.isEmpty() || !literal.matches("[0-9A-Fa-f:.]+")) {
            throw new IllegalArgumentException("--trusted-source needs an IP address, not '" + text + "'");
        }
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("--trusted-source needs an IP address, not '" + text + "'");
        }
    }
}
