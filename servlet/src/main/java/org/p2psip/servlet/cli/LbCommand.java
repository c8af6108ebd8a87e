package org.p2psip.servlet.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;

import org.p2psip.core.guard.SourceLimits;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.lb.BalancerSettings;
import org.p2psip.servlet.lb.BalancerStartException;
import org.p2psip.servlet.lb.BalancingPolicy;
import org.p2psip.servlet.lb.ConnectionLimits;
import org.p2psip.servlet.lb.SipBalancer;
import org.p2psip.servlet.tls.TlsListener;
import org.p2psip.servlet.tls.TlsMaterial;
import org.p2psip.servlet.tls.TlsMaterialException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code p2psip lb}: runs the stateless SIP load balancer in front of
 * running nodes until SIGTERM or Ctrl-C.
 *
 * <p>The abuse and overload flags are mixins ({@link SourceOptions},
 * {@link ConnectionOptions}, {@link TlsOptions}) so {@code node} and
 * {@code cluster} can offer the same names with the same defaults and help.
 */
@Command(name = "lb", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, sortOptions = false,
        description = "Run the stateless SIP load balancer (UDP and TCP on one port, TLS optionally on another) in "
                + "front of P2PSIP nodes. Requests go to a live node chosen by --policy; responses return through "
                + "the balancer's Via. Nodes are probed with OPTIONS and skipped while they do not answer, and "
                + "passed over for new requests while they shed load (503 with Retry-After, RFC 7339 oc). "
                + "Sources that flood are banned; connections are capped and timed out. Runs until SIGTERM or "
                + "Ctrl-C.")
final class LbCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger("org.p2psip.lb");

    @Spec
    CommandSpec spec;

    @Option(names = "--sip", required = true, paramLabel = "HOST:PORT", converter = HostPortConverter.class,
            description = "Address clients send SIP to; UDP and TCP share the port.")
    HostPort sip;

    @Option(names = "--nodes", required = true, paramLabel = "HOST:PORT", split = ",",
            converter = HostPortConverter.class, description = "The nodes' SIP addresses, comma-separated.")
    List<HostPort> nodes = new ArrayList<>();

    @Option(names = "--policy", paramLabel = "POLICY", converter = PolicyConverter.class,
            defaultValue = "call-id",
            description = "call-id (default: consistent hash of Call-ID, so a transaction, its retransmissions "
                    + "and its dialog stay on one node and load spreads evenly), aor (consistent hash of the "
                    + "AOR: REGISTER by To, others by Request-URI) or round-robin.")
    BalancingPolicy policy;

    @Option(names = "--probe-interval", paramLabel = "MILLIS",
            description = "How often each node gets an OPTIONS. Default: ${DEFAULT-VALUE}.")
    long probeIntervalMillis = BalancerSettings.DEFAULT_PROBE_INTERVAL.toMillis();

    @Option(names = "--probe-failures", paramLabel = "N",
            description = "Unanswered probes in a row that take a node out. Default: ${DEFAULT-VALUE}.")
    int probeFailures = BalancerSettings.DEFAULT_PROBE_FAILURES;

    @Mixin
    SourceOptions sources = new SourceOptions();

    @Mixin
    ConnectionOptions connections = new ConnectionOptions();

    @Mixin
    TlsOptions tls = new TlsOptions();

    @Override
    public Integer call() {
        BalancerSettings settings;
        try {
            settings = new BalancerSettings(sip, nodes, policy, Duration.ofMillis(probeIntervalMillis), probeFailures,
                    connections.maxMessageBytes(spec.commandLine()), BalancerSettings.DEFAULT_RETRY_AFTER)
                    .withSources(sources.limits(spec.commandLine()), sources.trusted(spec.commandLine()))
                    .withConnections(connections.limits());
            Optional<TlsListener> listener = tls.listener(spec.commandLine());
            if (listener.isPresent()) {
                settings = settings.withTls(listener.get());
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        SipBalancer balancer;
        try {
            balancer = SipBalancer.start(settings);
        } catch (BalancerStartException e) {
            OneLineErrors.print(spec.commandLine(), e.getMessage());
            return OneLineErrors.FAILURE;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            balancer.close();
            stopped.countDown();
        }, "p2psip-lb-shutdown"));
        LOG.info("p2psip lb listening on sip:{} (udp, tcp){} balancing {} policy={}", balancer.address(),
                balancer.tlsAddress().map(a -> " sips:" + a + " (tls)").orElse(""), describe(nodes), policy);
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    static String describe(List<HostPort> nodes) {
        return nodes.stream().map(HostPort::toString).collect(Collectors.joining(",", "[", "]"));
    }

    /** Reads {@code --policy}, naming the accepted values when it is wrong. */
    static final class PolicyConverter implements ITypeConverter<BalancingPolicy> {
        @Override
        public BalancingPolicy convert(String value) {
            try {
                return BalancingPolicy.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /**
     * Per-source rate limiting and bans ({@link SourceLimits}), the same
     * flags for {@code lb}, {@code node} and {@code cluster}.
     */
    static final class SourceOptions {

        @Option(names = "--source-rate", paramLabel = "N",
                description = "Messages per second one source address may send on average (UDP datagrams, TCP/TLS "
                        + "messages and connection attempts all count); a source that goes over is banned. "
                        + "0 turns the limit off. Default: ${DEFAULT-VALUE}.")
        int rate = SourceLimits.DEFAULT.ratePerSecond();

        @Option(names = "--source-burst", paramLabel = "N",
                description = "Messages one source may send at once before --source-rate applies (a NAT's phones "
                        + "re-registering together). Default: ${DEFAULT-VALUE}.")
        int burst = SourceLimits.DEFAULT.burst();

        @Option(names = "--source-ban", paramLabel = "SECONDS",
                description = "How long a source over its rate is ignored: its messages are dropped unanswered and "
                        + "its connections closed. Default: ${DEFAULT-VALUE}.")
        long banSeconds = SourceLimits.DEFAULT.ban().toSeconds();

        @Option(names = "--trusted-source", paramLabel = "ADDRESS", split = ",",
                description = "An address never limited (repeatable or comma-separated): another balancer, a "
                        + "monitoring host, a load generator. The nodes are always trusted.")
        List<String> trusted = new ArrayList<>();

        SourceLimits limits(CommandLine cl) {
            if (rate < 0) {
                throw new ParameterException(cl, "--source-rate must be 0 (off) or more, not " + rate);
            }
            if (burst < 1) {
                throw new ParameterException(cl, "--source-burst must be at least 1, not " + burst);
            }
            if (banSeconds < 0) {
                throw new ParameterException(cl, "--source-ban must not be negative, not " + banSeconds);
            }
            return rate == 0 ? SourceLimits.OFF
                    : new SourceLimits(rate, burst, Duration.ofSeconds(banSeconds),
                            SourceLimits.DEFAULT.maxSources());
        }

        Set<InetAddress> trusted(CommandLine cl) {
            Set<InetAddress> addresses = new LinkedHashSet<>();
            for (String t : trusted) {
                String a = t.strip();
                if (a.startsWith("[") && a.endsWith("]")) {
                    a = a.substring(1, a.length() - 1);
                }
                // Literals only, as for node: a name would mean a DNS lookup at start and trust in its answer.
                if (a.isEmpty() || !a.matches("[0-9A-Fa-f:.]+")) {
                    throw new ParameterException(cl, "--trusted-source needs an IP address, not '" + t + "'");
                }
                try {
                    addresses.add(InetAddress.getByName(a));
                } catch (UnknownHostException e) {
                    throw new ParameterException(cl, "--trusted-source needs an IP address, not '" + t + "'");
                }
            }
            return addresses;
        }
    }

    /** TCP and TLS connection limits ({@link ConnectionLimits}) and the message size limit. */
    static final class ConnectionOptions {

        @Option(names = "--idle-timeout", paramLabel = "SECONDS",
                description = "A client connection that sends nothing for this long is closed; a CRLF keep-alive "
                        + "(RFC 5626) counts. Default: ${DEFAULT-VALUE}.")
        long idleSeconds = ConnectionLimits.DEFAULT_IDLE_TIMEOUT.toSeconds();

        @Option(names = "--message-deadline", paramLabel = "SECONDS",
                description = "A message (and a TLS handshake) must arrive whole within this long of its first "
                        + "byte, or the connection is closed: slow senders cannot hold connections. "
                        + "Default: ${DEFAULT-VALUE}.")
        long deadlineSeconds = ConnectionLimits.DEFAULT_MESSAGE_DEADLINE.toSeconds();

        @Option(names = "--max-connections", paramLabel = "N",
                description = "Client connections (TCP and TLS together) open at once; more are closed on accept. "
                        + "Keep it below the process's open-file limit. Default: ${DEFAULT-VALUE}.")
        int max = ConnectionLimits.DEFAULT_MAX_CONNECTIONS;

        @Option(names = "--max-connections-per-source", paramLabel = "N",
                description = "Client connections from one IP address at once; more are closed on accept. "
                        + "Default: ${DEFAULT-VALUE}.")
        int perSource = ConnectionLimits.DEFAULT_MAX_CONNECTIONS_PER_SOURCE;

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
                    perSource);
        }
    }
}
