package org.p2psip.servlet.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.p2psip.servlet.node.ProtectionSettings;

import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The flags that set a node's defences ({@link ProtectionSettings}), shared
 * by {@code node} and {@code cluster}: the per-source and connection flags
 * the balancer has too, and the node's own overload and capacity flags.
 */
final class ProtectionOptions {

    private static final ProtectionSettings D = ProtectionSettings.DEFAULT;

    @Mixin
    SourceOptions sources = new SourceOptions();

    @Mixin
    ConnectionOptions connections = new ConnectionOptions();

    @Option(names = "--overload-delay", paramLabel = "MILLIS",
            description = "When the oldest request waiting to be processed has waited this long, and has for "
                    + "half this time again, new requests are answered 503 with Retry-After instead of queued. "
                    + "Default: ${DEFAULT-VALUE}.")
    long overloadDelayMillis = D.overloadDelay().toMillis();

    @Option(names = "--retry-after", paramLabel = "SECONDS",
            description = "The Retry-After of an overloaded node's 503. Default: ${DEFAULT-VALUE}.")
    long retryAfterSeconds = D.retryAfter().toSeconds();

    @Option(names = "--max-registrations", paramLabel = "N",
            description = "Values (bindings, credentials) this node holds at most; REGISTERs that would add a "
                    + "binding get 503 past it. Default: ${DEFAULT-VALUE}.")
    int maxRegistrations = D.maxRegistrations();

    @Option(names = "--unauthenticated-rate", paramLabel = "N",
            description = "With authentication on, REGISTER, SUBSCRIBE, PUBLISH and MESSAGE requests without "
                    + "credentials this node answers per second from all sources together (bursts of twice that); "
                    + "the rest are dropped unanswered, so a flood from many addresses, each under "
                    + "--source-rate, cannot take the node's time from phones with credentials. 0 turns it off. "
                    + "Default: ${DEFAULT-VALUE}.")
    int unauthenticatedRate = D.unauthenticatedRate();

    /** The settings these flags describe; a bad value is a one-line error of {@code cl}. */
    ProtectionSettings settings(CommandLine cl) {
        return new ProtectionSettings(sources.limits(cl), sources.trusted(cl), Duration.ofMillis(overloadDelayMillis),
                D.overloadQueue(), Duration.ofSeconds(retryAfterSeconds), connections.limits(),
                connections.maxMessageBytes(cl), maxRegistrations, unauthenticatedRate);
    }

    /** These settings as {@code node} flags, for {@code cluster} to hand to the nodes it starts. */
    List<String> nodeFlags() {
        List<String> flags = new ArrayList<>(List.of(
                "--source-rate", Integer.toString(sources.rate),
                "--source-burst", Integer.toString(sources.burst),
                "--source-ban", Long.toString(sources.banSeconds),
                "--idle-timeout", Long.toString(connections.idleSeconds),
                "--message-deadline", Long.toString(connections.deadlineSeconds),
                "--max-connections", Integer.toString(connections.max),
                "--max-connections-per-source", Integer.toString(connections.perSource),
                "--max-message-size", Integer.toString(connections.maxMessageBytes),
                "--overload-delay", Long.toString(overloadDelayMillis),
                "--retry-after", Long.toString(retryAfterSeconds),
                "--max-registrations", Integer.toString(maxRegistrations),
                "--unauthenticated-rate", Integer.toString(unauthenticatedRate)));
        for (String t : sources.trusted) {
            flags.addAll(List.of("--trusted-source", t));
        }
        return flags;
    }
}
