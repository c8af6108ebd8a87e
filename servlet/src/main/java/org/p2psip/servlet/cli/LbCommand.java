package org.p2psip.servlet.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;

import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.StatelessNonces;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.net.HostPort;
import org.p2psip.balancer.BalancerSettings;
import org.p2psip.balancer.BalancerStartException;
import org.p2psip.balancer.BalancingPolicy;
import org.p2psip.balancer.EdgeChallenges;
import org.p2psip.balancer.SipBalancer;
import org.p2psip.core.tls.TlsListener;
import org.p2psip.servlet.metrics.MetricsServer;
import org.p2psip.servlet.node.TrustSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
                + "passed over for new requests while they shed load (503 with Retry-After, RFC 7339 oc) or "
                + "warm up (503 with P2psip-Ready: no); a node that turns ready ramps up over --slow-start. "
                + "Phones on TCP and TLS keep their connection here: their REGISTER gets a Path with a flow "
                + "token, and calls for them come back down that connection (RFC 5626 outbound, RFC 3327), "
                + "or get 430 once it is closed. "
                + "Sources that flood are banned; connections are capped and timed out. Runs until SIGTERM or "
                + "Ctrl-C.")
final class LbCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger("org.p2psip.lb");

    @Spec
    CommandSpec spec;

    @Mixin
    ConfigFileOption config = new ConfigFileOption();

    @Option(names = "--sip", required = true, paramLabel = "HOST:PORT", converter = HostPortConverter.class,
            description = "Address clients send SIP to; UDP and TCP share the port.")
    HostPort sip;

    @Option(names = "--advertise", paramLabel = "HOST[:PORT]", converter = AdvertiseConverter.class,
            description = "The address clients reach the balancer at, written in its Via and Record-Route (the "
                    + "port defaults to --sip's). Needed when --sip binds every interface (0.0.0.0 or ::). "
                    + "Default: the --sip address.")
    HostPort advertise;

    @Option(names = "--nodes", required = true, paramLabel = "HOST:PORT", split = ",",
            converter = HostPortConverter.class, description = "The nodes' SIP addresses, comma-separated.")
    List<HostPort> nodes = new ArrayList<>();

    @Option(names = "--policy", paramLabel = "POLICY", converter = PolicyConverter.class,
            defaultValue = "owner",
            description = "owner (default: each request to the node that owns its AOR's key in the DHT, REGISTER "
                    + "by To, others by Request-URI, as the nodes say in their answers to the probes; nodes tell "
                    + "only the balancer they name in --record-route; a request whose key no node claims goes by "
                    + "Call-ID), call-id (consistent hash of Call-ID, so a transaction, its retransmissions and "
                    + "its dialog stay on one node and load spreads evenly), aor (consistent hash of the AOR) or "
                    + "round-robin.")
    BalancingPolicy policy;

    @Option(names = "--probe-interval", paramLabel = "MILLIS",
            description = "How often each node gets an OPTIONS. Default: ${DEFAULT-VALUE}.")
    long probeIntervalMillis = BalancerSettings.DEFAULT_PROBE_INTERVAL.toMillis();

    @Option(names = "--probe-failures", paramLabel = "N",
            description = "Unanswered probes in a row that take a node out. Default: ${DEFAULT-VALUE}.")
    int probeFailures = BalancerSettings.DEFAULT_PROBE_FAILURES;

    @Option(names = "--slow-start", paramLabel = "SECONDS",
            description = "How long a node that turns ready (after warming up, or after being down) takes to get its "
                    + "full share of new requests: its share rises linearly from 10 %% to all of it over this many "
                    + "seconds, so a freshly started JVM is not handed a full load while it is still slow. Nodes "
                    + "ready at the balancer's first probes get their full share at once. A node warming up (its "
                    + "probe answered 503 with P2psip-Ready: no) gets no new requests at all. 0 turns slow start "
                    + "off. Default: ${DEFAULT-VALUE}.")
    long slowStartSeconds = BalancerSettings.DEFAULT_SLOW_START.toSeconds();

    @Option(names = "--metrics", paramLabel = "HOST:PORT", converter = HostPortConverter.class,
            description = "Serve Prometheus metrics over HTTP at http://HOST:PORT/metrics: client requests sent to "
                    + "each node, each node's health and shedding, what was forwarded, answered, dropped and "
                    + "closed, and the JVM's CPU, memory and collections. Unauthenticated: bind it where only "
                    + "your monitoring reaches it. Default: off.")
    HostPort metrics;

    @Mixin
    LogLevelOption logLevel = new LogLevelOption();

    @Mixin
    SourceOptions sources = new SourceOptions();

    @Mixin
    ConnectionOptions connections = new ConnectionOptions();

    @Mixin
    TlsOptions tls = new TlsOptions();

    @Option(names = "--unauthenticated-rate", paramLabel = "N",
            description = "REGISTER, SUBSCRIBE, PUBLISH and MESSAGE requests without credentials passed on per "
                    + "second from all clients together (bursts of twice that); the rest are dropped before they "
                    + "are parsed. For nodes that authenticate: the sum of their --unauthenticated-rate. 0 passes "
                    + "them all. Default: ${DEFAULT-VALUE}.")
    int unauthenticatedRate;

    @Option(names = "--challenge-domain", paramLabel = "DOMAIN", split = ",",
            description = "Answer a REGISTER without credentials for this domain (repeatable, or comma-separated: "
                    + "the nodes' --domain values, their default first; the balancer's own address counts as the "
                    + "default, as the nodes' --alias for it says) with the nodes' own 401 challenge instead of "
                    + "passing it on, so "
                    + "the first round of every registration, and a flood of them from many sources, costs the "
                    + "nodes nothing. The nonces are made with the cluster secret (" + ClusterSecrets.ENV
                    + " in the environment), which the nodes accept. Only for nodes that authenticate. "
                    + "Default: none (every REGISTER goes to a node).")
    List<String> challengeDomains = new ArrayList<>();

    @Option(names = "--digest-algorithms", paramLabel = "LIST", defaultValue = "SHA-256,SHA-512-256,MD5",
            description = "With --challenge-domain: the nodes' --digest-algorithms, offered in this order. "
                    + "Default: ${DEFAULT-VALUE}.")
    String digestAlgorithms;

    @Override
    public Integer call() {
        logLevel.apply(spec);
        if (slowStartSeconds < 0) {
            throw new ParameterException(spec.commandLine(), "--slow-start must be 0 or more seconds, not "
                    + slowStartSeconds);
        }
        BalancerSettings settings;
        try {
            settings = new BalancerSettings(sip, nodes, policy, Duration.ofMillis(probeIntervalMillis), probeFailures,
                    connections.maxMessageBytes(spec.commandLine()), BalancerSettings.DEFAULT_RETRY_AFTER)
                    .withSources(sources.limits(spec.commandLine()), sources.trusted(spec.commandLine()))
                    .withConnections(connections.limits())
                    .withSlowStart(Duration.ofSeconds(slowStartSeconds))
                    .withUnauthenticatedRate(unauthenticatedRate);
            if (advertise != null) {
                settings = settings.withAdvertise(advertise);
            }
            if (!challengeDomains.isEmpty()) {
                settings = settings.withEdgeChallenges(edgeChallenges());
            }
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
        MetricsServer exporter = null;
        if (metrics != null) {
            try {
                exporter = MetricsServer.start(metrics, balancer);
            } catch (IOException e) {
                balancer.close();
                OneLineErrors.print(spec.commandLine(), "cannot serve --metrics on " + metrics + ": " + e.getMessage());
                return OneLineErrors.FAILURE;
            }
        }
        MetricsServer served = exporter;
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (served != null) {
                served.close();
            }
            balancer.close();
            stopped.countDown();
        }, "p2psip-lb-shutdown"));
        LOG.info("p2psip lb listening on sip:{} (udp, tcp){}{} balancing {} policy={}{}", balancer.address(),
                advertise == null ? "" : " advertised as " + advertise.host()
                        + (advertise.port() == 0 ? "" : ":" + advertise.port()),
                balancer.tlsAddress().map(a -> " sips:" + a + " (tls)").orElse(""), describe(nodes), policy,
                served == null ? "" : " metrics=http://" + served.address() + "/metrics");
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    private EdgeChallenges edgeChallenges() {
        String secret = ClusterSecrets.resolve(null).orElseThrow(() -> new ParameterException(spec.commandLine(),
                "--challenge-domain needs the nodes' cluster secret in " + ClusterSecrets.ENV
                        + ": a nonce made without it is refused by every node"));
        return new EdgeChallenges(new ServedDomains(challengeDomains, List.of()),
                DigestAlgorithm.parseList(digestAlgorithms),
                new StatelessNonces(secret.getBytes(StandardCharsets.UTF_8), TrustSettings.DEFAULT_NONCE_LIFETIME));
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
}
