package org.p2psip.servlet.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.StatelessNonces;
import org.p2psip.core.dht.DhtBackends;
import org.p2psip.core.guard.SourceLimits;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.store.FlushPolicy;
import org.p2psip.balancer.BalancerSettings;
import org.p2psip.balancer.BalancerStartException;
import org.p2psip.balancer.BalancingPolicy;
import org.p2psip.balancer.EdgeChallenges;
import org.p2psip.balancer.SipBalancer;
import org.p2psip.servlet.metrics.MetricsServer;
import org.p2psip.servlet.netns.NamespaceHosts;
import org.p2psip.servlet.netns.NamespaceHostsException;
import org.p2psip.servlet.node.CompilerQuiet;
import org.p2psip.servlet.node.NodeWarmup;
import org.p2psip.servlet.node.WarmupLoad;
import org.p2psip.servlet.node.ProtectionSettings;
import org.p2psip.servlet.node.TrustSettings;
import org.p2psip.core.tls.SelfSignedTls;
import org.p2psip.core.tls.TlsListener;
import org.p2psip.core.tls.TlsMaterial;
import org.p2psip.core.tls.TlsMaterialException;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code p2psip cluster}: N node processes and the load balancer in front
 * of them, on one host, in one command. Node {@code i} (1-based) listens for
 * SIP on the balancer's port + i and for the overlay on
 * {@code --overlay-base} + i - 1; the first node starts the overlay and the
 * others bootstrap from it, one after another, each once the one before
 * says it is ready (a rolling start: each warms up on the host's cores
 * alone; see {@code node --warm-up}). Nodes run as separate JVMs with
 * this process's java binary, class path and JVM flags, so killing one is
 * a real node failure. Ctrl-C or SIGTERM stops the balancer and SIGTERMs every node.
 * With {@code --metrics-base} node {@code i} also serves Prometheus metrics
 * on that port + i - 1 of its host, and the balancer on that port + N.
 *
 * <p>With {@code --netns} every node runs on a host of its own, a network
 * namespace with its own address on a bridge ({@link NamespaceHosts}), and
 * client hosts are made for phones and SIPp: what one machine's loopback
 * hides (advertised addresses, who can reach whom) then shows. The
 * balancer stays in this process, on the bridge's address: this machine is
 * its host. The hosts go when the cluster stops.
 */
@Command(name = "cluster", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false,
        description = "Start N node processes and the SIP load balancer in front of them: the balancer on --sip, "
                + "node i on the next ports (SIP port + i) with its overlay on --overlay-base + i - 1, started once node "
                + "i - 1 is ready. "
                + "Prints the layout, runs until SIGTERM or Ctrl-C, then stops every process.")
final class ClusterCommand implements Callable<Integer> {

    /** What a node prints once it answers SIP (NodeCommand's start line). */
    static final String READY_TEXT = "listening on sip:";
    /** Requests a second the balancer's warm-up sends at most: four fifths of the default per-source limit. */
    static final int BALANCER_WARMUP_RATE = 4_000;
    /** The share of the per-source limit the balancer's warm-up may use: its address is held to that limit. */
    static final int WARMUP_SHARE_PERCENT = 80;
    /** The longest the cluster waits after the balancer's warm-up for the JIT compiler to catch up. */
    private static final Duration BALANCER_COMPILER_WAIT = Duration.ofSeconds(10);
    /** A node's TLS port is its SIP port plus this: clear of the SIP, balancer and 5061-style TLS ports. */
    static final int NODE_TLS_OFFSET = 1000;
    private static final Duration NODE_START = Duration.ofSeconds(120);
    private static final Duration NODE_STOP = Duration.ofSeconds(15);
    static final String DEFAULT_NETNS = "10.213.7";
    private static final int DEFAULT_NETNS_CLIENTS = 2;
    /** Node i's host is PREFIX.(NODE_OCTET + i), client k's PREFIX.(CLIENT_OCTET + k). */
    private static final int NODE_OCTET = 10;
    private static final int CLIENT_OCTET = 200;

    @Spec
    CommandSpec spec;

    @Mixin
    ConfigFileOption config = new ConfigFileOption();

    @Option(names = "--dht", required = true, paramLabel = "NAME",
            description = "DHT backend the nodes share: hazelcast, chord, kademlia (whichever are on the class "
                    + "path), or local with --nodes 1.")
    String dht;

    @Option(names = "--nodes", required = true, paramLabel = "N", description = "How many node processes.")
    int nodeCount;

    @Option(names = "--sip", required = true, paramLabel = "HOST:PORT", converter = HostPortConverter.class,
            description = "Where the balancer listens (UDP and TCP); nodes take the following ports.")
    HostPort sip;

    @Option(names = "--netns", arity = "0..1", fallbackValue = DEFAULT_NETNS, paramLabel = "PREFIX",
            description = "Run every node on a host of its own: a Linux network namespace with its own address on "
                    + "a bridge, PREFIX.0/24 (default " + DEFAULT_NETNS + "). The balancer listens on the bridge's "
                    + "address PREFIX.1 (this machine) at the --sip port, node i on PREFIX.(10+i), client hosts "
                    + "(--netns-clients) on PREFIX.201 and up; the host part of --sip and --tls is replaced. "
                    + "Needs root; the namespaces and the bridge are removed when the cluster stops.")
    String netns;

    @Option(names = "--netns-clients", paramLabel = "N",
            description = "With --netns, how many client hosts to make for phones and SIPp (run a program on one "
                    + "with 'ip netns exec NAME ...'). Default: " + DEFAULT_NETNS_CLIENTS + ".")
    Integer netnsClientsOption;

    /** The client hosts to make: as given, else {@link #DEFAULT_NETNS_CLIENTS}. */
    private int netnsClients() {
        return netnsClientsOption != null ? netnsClientsOption : DEFAULT_NETNS_CLIENTS;
    }

    @Option(names = "--overlay-base", paramLabel = "PORT",
            description = "Overlay port of the first node; the others take the following ones. Default: ${DEFAULT-VALUE}.")
    int overlayBase = 7001;

    @Option(names = "--replicas", paramLabel = "N",
            description = "Copies of each registration kept in the DHT. With N copies any N-1 nodes may crash "
                    + "at once and every phone stays reachable; with 1, a crashed node's registrations are lost "
                    + "until their phones re-register (up to their Expires, often an hour). Each copy costs "
                    + "one more write per REGISTER. Default: 2 with two or more nodes, else 1.")
    Integer replicasOption;

    /** The copies the nodes keep: as given, else two whenever there are two nodes to hold them. */
    int replicas() {
        return replicasOption != null ? replicasOption : nodeCount > 1 ? 2 : 1;
    }

    @Option(names = "--policy", paramLabel = "POLICY", converter = LbCommand.PolicyConverter.class,
            defaultValue = "owner", description = "The balancer's policy: owner (default: each request to the node "
                    + "that owns its AOR in the DHT, by Call-ID when none claims it), call-id, aor or round-robin.")
    BalancingPolicy policy;

    @Option(names = "--probe-interval", paramLabel = "MILLIS",
            description = "How often the balancer probes each node. Default: ${DEFAULT-VALUE}.")
    long probeIntervalMillis = BalancerSettings.DEFAULT_PROBE_INTERVAL.toMillis();

    @Option(names = "--probe-failures", paramLabel = "N",
            description = "Unanswered probes in a row that take a node out. Default: ${DEFAULT-VALUE}.")
    int probeFailures = BalancerSettings.DEFAULT_PROBE_FAILURES;

    @Option(names = "--domain", paramLabel = "DOMAIN", split = ",",
            description = "A SIP domain the cluster serves, repeatable or comma-separated; the first is the "
                    + "default. The balancer's and the nodes' addresses are aliases of it. Default: the host of --sip.")
    List<String> domains = new ArrayList<>();

    @Option(names = "--auth", paramLabel = "required|none", defaultValue = "required",
            converter = AuthMode.Converter.class,
            description = "required: digest authentication of REGISTERs and of requests from local users; "
                    + "none: anyone may register anything (closed test networks only). Default: ${DEFAULT-VALUE}.")
    AuthMode auth;

    @Option(names = "--digest-algorithms", paramLabel = "LIST", defaultValue = "SHA-256,SHA-512-256,MD5",
            description = "Digest algorithms the nodes offer, most preferred first (MD5 alone for SIPp 3.6 and "
                    + "baresip 1.x). Default: ${DEFAULT-VALUE}.")
    String digestAlgorithms;

    @Option(names = "--admin-base", paramLabel = "PORT",
            description = "Admin endpoint port of the first node on the --sip host; the others take the following "
                    + "ones. 'p2psip user ... --cluster HOST:PORT' manages users through any of them. 0 turns "
                    + "the endpoints off. Default: ${DEFAULT-VALUE}.")
    int adminBase = 8001;

    @Mixin
    LogLevelOption logLevel = new LogLevelOption();

    @Mixin
    DataDirOptions dataDir = new DataDirOptions();

    @Option(names = "--metrics-base", paramLabel = "PORT",
            description = "Prometheus metrics port of the first node on its host (node i gets --metrics HOST:PORT+i-1, "
                    + "served at /metrics; see 'node --help'); the balancer's metrics ('lb --help') follow on "
                    + "PORT+N of its host. 0 turns the endpoints off. Default: ${DEFAULT-VALUE}.")
    int metricsBase = 0;

    @Mixin
    ProtectionOptions protection = new ProtectionOptions();

    @Mixin
    AccountingOptions accounting = new AccountingOptions();

    /** What {@link #validate} made of the accounting flags, for every node. */
    private List<String> accountingFlags = List.of();

    @Option(names = "--warm-up", paramLabel = "N",
            description = "REGISTER flows each node runs through a throwaway copy of itself before it says it is "
                    + "ready (see 'node --help'); the cluster is ready when every node is. Then the balancer gets "
                    + "as many REGISTER queries over UDP and a tenth of that over TCP, at up to 4,000/s. 0 starts "
                    + "them all cold. Default: ${DEFAULT-VALUE}.")
    int warmUp = NodeWarmup.DEFAULT_FLOWS;

    @Option(names = "--slow-start", paramLabel = "SECONDS",
            description = "How long a node that turns ready again (after being down or warming up) takes to get its "
                    + "full share of new requests at the balancer (see 'lb --help'); the nodes the cluster starts "
                    + "with get theirs at once. 0 turns it off. Default: ${DEFAULT-VALUE}.")
    long slowStartSeconds = BalancerSettings.DEFAULT_SLOW_START.toSeconds();

    @Option(names = "--tls", paramLabel = "HOST:PORT", converter = HostPortConverter.class,
            description = "Also take SIP over TLS (TLS 1.2 and 1.3) at the balancer here; each node also listens for "
                    + "TLS (see --tls-base), so it can reach phones registered with transport=tls. Without --tls-cert "
                    + "and --tls-key a self-signed certificate for the host is made in --tls-dir; clients must trust "
                    + "its cert.pem.")
    HostPort tlsAddress;

    @Option(names = "--tls-base", paramLabel = "PORT",
            description = "With --tls: the TLS port of the first node; the others take the following ones. "
                    + "Default: each node's SIP port + " + NODE_TLS_OFFSET + ".")
    int tlsBase;

    @Option(names = "--tls-cert", paramLabel = "PEM", description = "The certificate chain for --tls, PEM, leaf first.")
    Path tlsCertificate;

    @Option(names = "--tls-key", paramLabel = "PEM", description = "The private key for --tls, PEM, unencrypted.")
    Path tlsKey;

    @Option(names = "--tls-dir", paramLabel = "DIR",
            description = "Where a self-signed certificate is written when --tls is given without one. "
                    + "Default: a new directory under the system's temporary directory.")
    Path tlsDir;

    /** The PEM files every TLS listener of the cluster presents, once {@link #validate} made or found them. */
    private SelfSignedTls.PemFiles tlsFiles;

    /** One node process and what it printed. */
    private record Child(int number, HostPort sip, Optional<HostPort> overlay, Optional<HostPort> admin,
                         Optional<HostPort> metrics, Process process, List<String> output,
                         CompletableFuture<Void> ready) {
    }

    private final List<Child> children = new CopyOnWriteArrayList<>();
    /** The cluster's own nodes share a secret nobody else knows unless the operator names one. */
    private final String clusterSecret = ClusterSecrets.resolve(null).orElseGet(ClusterCommand::randomSecret);
    private final AtomicBoolean stopping = new AtomicBoolean();
    private volatile SipBalancer balancer;
    private volatile MetricsServer balancerMetrics;
    private volatile NamespaceHosts hosts;

    @Override
    public Integer call() {
        long startNanos = System.nanoTime();
        BalancerSettings lbSettings = validate();
        PrintWriter out = spec.commandLine().getOut();
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stopAll();
            stopped.countDown();
        }, "p2psip-cluster-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            if (netns != null) {
                hosts = makeHosts();
                printHosts(out);
            }
            checkFree(lbSip());
            List<HostPort> nodeAddresses = new ArrayList<>();
            // One after another, each once the one before is ready, as a rolling start does: nodes that warm
            // up together share the host's cores, and the warm-up's 30 s budget cut the later ones short
            // (2 Dec: two of three kademlia nodes ready in 36-38 s, the one alone in 11 s).
            for (int i = 1; i <= nodeCount; i++) {
                awaitReady(spawn(i));
            }
            for (Child c : children) {
                nodeAddresses.add(c.sip());
                out.println("p2psip cluster: node " + c.number() + " pid " + c.process().pid() + " sip:" + c.sip()
                        + nodeTls(c.number()).map(t -> " sips:" + t).orElse("")
                        + c.overlay().map(o -> " overlay:" + o).orElse("") + c.admin().map(a -> " admin:" + a).orElse("")
                        + c.metrics().map(m -> " metrics:" + m).orElse("")
                        + " dht=" + dht + " replicas=" + replicas());
            }
            balancer = SipBalancer.start(lbSettings);
            if (metricsBase != 0) {
                HostPort at = new HostPort(balancer.address().host(), metricsBase + nodeCount);
                try {
                    balancerMetrics = MetricsServer.start(at, balancer);
                } catch (IOException e) {
                    throw new StartFailure("cannot serve the balancer's metrics on " + at + ": " + e.getMessage());
                }
            }
            out.println("p2psip cluster: lb pid " + ProcessHandle.current().pid() + " sip:" + balancer.address()
                    + " (udp, tcp)" + balancer.tlsAddress().map(t -> " sips:" + t + " (tls)").orElse("")
                    + (balancerMetrics == null ? "" : " metrics:" + balancerMetrics.address())
                    + " policy=" + policy + " nodes=" + LbCommand.describe(nodeAddresses));
            if (tlsFiles != null) {
                out.println("p2psip cluster: TLS certificate " + tlsFiles.certificate() + " (clients trust this)");
            }
            warmBalancer(out);
            out.println("p2psip cluster ready: " + nodeCount + " node" + (nodeCount == 1 ? "" : "s")
                    + " behind sip:" + balancer.address() + " domains=" + servedDomains() + " auth=" + auth
                    + String.format(Locale.ROOT, " (in %.1f s)", (System.nanoTime() - startNanos) / 1e9));
            if (adminBase != 0 && ClusterSecrets.resolve(null).isEmpty()) {
                out.println("p2psip cluster: the nodes share a secret of their own; to manage users with "
                        + "'p2psip user', start the cluster with " + ClusterSecrets.ENV + " set");
            }
            out.flush();
            watchForExits(out);
        } catch (StartFailure | BalancerStartException | NamespaceHostsException e) {
            OneLineErrors.print(spec.commandLine(), e.getMessage());
            stopAll();
            removeHook(hook);
            return OneLineErrors.FAILURE;
        }
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    private BalancerSettings validate() {
        logLevel.apply(spec);
        ProtectionSettings p;
        try {
            p = protection.settings(spec.commandLine());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        List<String> backends = DhtBackends.names();
        if (!backends.contains(dht)) {
            throw new ParameterException(spec.commandLine(), "unknown DHT backend '" + dht + "' (available: "
                    + String.join(", ", backends) + ")");
        }
        if (warmUp < 0) {
            throw new ParameterException(spec.commandLine(), "--warm-up must be 0 (none) or more REGISTER flows");
        }
        if (slowStartSeconds < 0) {
            throw new ParameterException(spec.commandLine(), "--slow-start must be 0 or more seconds, not "
                    + slowStartSeconds);
        }
        if (nodeCount < 1 || nodeCount > 64) {
            throw new ParameterException(spec.commandLine(), "--nodes must be between 1 and 64");
        }
        if ("local".equals(dht) && nodeCount > 1) {
            throw new ParameterException(spec.commandLine(), "the local backend keeps registrations inside one "
                    + "node, so it runs only with --nodes 1; pick a shared backend (" + String.join(", ",
                    backends.stream().filter(b -> !"local".equals(b)).toList()) + ")");
        }
        if (netns != null && (netnsClients() < 0 || netnsClients() > 50)) {
            throw new ParameterException(spec.commandLine(), "--netns-clients must be between 0 and 50");
        }
        // Given, whether by flag or by --config file: a parse result's matched options hold only the flags.
        if (netns == null && netnsClientsOption != null) {
            throw new ParameterException(spec.commandLine(), "--netns-clients needs --netns");
        }
        if (netns != null && !NamespaceHosts.isPrefix(netns)) {
            throw new ParameterException(spec.commandLine(), "--netns " + netns + " is not the first three octets "
                    + "of an IPv4 /24 (like " + DEFAULT_NETNS + ")");
        }
        if (sip.port() + nodeCount > 65535) {
            throw new ParameterException(spec.commandLine(), "--sip port leaves no room for " + nodeCount + " node ports");
        }
        if (overlayBase < 1 || overlayBase + nodeCount - 1 > 65535) {
            throw new ParameterException(spec.commandLine(), "--overlay-base must leave " + nodeCount
                    + " ports within 1..65535");
        }
        if (replicas() < 1) {
            throw new ParameterException(spec.commandLine(), "--replicas must be at least 1");
        }
        if (replicas() > nodeCount) {
            throw new ParameterException(spec.commandLine(), "--replicas " + replicas() + " needs at least that many "
                    + "nodes to hold the copies (--nodes " + nodeCount + ")");
        }
        accountingFlags = accounting.nodeFlags(spec.commandLine());
        if (!auth.required()) {
            System.err.println("p2psip cluster: --auth none: anyone can register, remove or replace any binding; "
                    + "use it on closed test networks only");
        }
        if (adminBase != 0 && (adminBase < 1 || adminBase + nodeCount - 1 > 65535)) {
            throw new ParameterException(spec.commandLine(), "--admin-base must leave " + nodeCount
                    + " ports within 1..65535, or be 0");
        }
        if (metricsBase != 0 && (metricsBase < 1 || metricsBase + nodeCount > 65535)) {
            throw new ParameterException(spec.commandLine(), "--metrics-base must leave " + (nodeCount + 1)
                    + " ports within 1..65535, or be 0");
        }
        try {
            DigestAlgorithm.parseList(digestAlgorithms);
            servedDomains().forEach(ServedDomains::of);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        List<HostPort> nodes = new ArrayList<>();
        for (int i = 1; i <= nodeCount; i++) {
            nodes.add(nodeSip(i));
        }
        try {
            BalancerSettings settings = new BalancerSettings(lbSip(), nodes, policy, Duration.ofMillis(probeIntervalMillis),
                    probeFailures, p.maxMessageBytes(), BalancerSettings.DEFAULT_RETRY_AFTER)
                    .withSources(p.sources(), p.trustedSources())
                    .withConnections(p.connections())
                    .withSlowStart(Duration.ofSeconds(slowStartSeconds))
                    // The nodes would answer no more challenges than their budgets allow: drop the rest first.
                    .withUnauthenticatedRate(auth.required() ? p.unauthenticatedRate() * nodeCount : 0);
            if (auth.required()) {
                // The first round of every registration, and a flood of them, ends at the balancer.
                settings = settings.withEdgeChallenges(new EdgeChallenges(new ServedDomains(servedDomains(), aliases()),
                        DigestAlgorithm.parseList(digestAlgorithms), new StatelessNonces(
                                clusterSecret.getBytes(StandardCharsets.UTF_8), TrustSettings.DEFAULT_NONCE_LIFETIME)));
            }
            Optional<TlsMaterial> material = tlsMaterial();
            return material.isPresent() ? settings.withTls(new TlsListener(lbTls(), material.get())) : settings;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** The cluster's TLS certificate: the one given, or a self-signed one made for the host. */
    private Optional<TlsMaterial> tlsMaterial() {
        if (tlsAddress == null) {
            if (tlsCertificate != null || tlsKey != null || tlsDir != null || tlsBase != 0) {
                throw new ParameterException(spec.commandLine(),
                        "--tls-cert, --tls-key, --tls-dir and --tls-base need --tls HOST:PORT");
            }
            return Optional.empty();
        }
        if (tlsAddress.port() == 0) {
            throw new ParameterException(spec.commandLine(), "--tls needs a port");
        }
        int firstNodeTls = nodeTlsPort(1);
        int lastNodeTls = nodeTlsPort(nodeCount);
        if (firstNodeTls < 1 || lastNodeTls > 65535) {
            throw new ParameterException(spec.commandLine(), "the nodes' TLS ports " + firstNodeTls + ".."
                    + lastNodeTls + " must lie within 1..65535" + (tlsBase == 0 ? " (their SIP ports + "
                    + NODE_TLS_OFFSET + "; --tls-base PORT moves them)" : ""));
        }
        int lastSip = sip.port() + nodeCount;
        if (firstNodeTls <= lastSip && lastNodeTls >= sip.port()
                || tlsAddress.port() >= firstNodeTls && tlsAddress.port() <= lastNodeTls) {
            throw new ParameterException(spec.commandLine(), "the nodes' TLS ports " + firstNodeTls + ".."
                    + lastNodeTls + " overlap the cluster's SIP ports " + sip.port() + ".." + lastSip
                    + " or --tls " + tlsAddress.port() + "; pick another --tls-base");
        }
        if (tlsAddress.port() >= sip.port() && tlsAddress.port() <= sip.port() + nodeCount) {
            throw new ParameterException(spec.commandLine(), "--tls port " + tlsAddress.port() + " is taken by the "
                    + "cluster's SIP ports " + sip.port() + ".." + (sip.port() + nodeCount) + " (balancer, then one "
                    + "per node); pick one outside them, e.g. " + (sip.port() - 1));
        }
        if ((tlsCertificate == null) != (tlsKey == null)) {
            throw new ParameterException(spec.commandLine(), "--tls-cert and --tls-key go together");
        }
        try {
            if (tlsCertificate != null) {
                tlsFiles = new SelfSignedTls.PemFiles(tlsCertificate, tlsKey);
            } else {
                Path dir = tlsDir != null ? tlsDir : Files.createTempDirectory("p2psip-cluster-tls-");
                List<String> names = new ArrayList<>(List.of(lbTls().host(), lbHost()));
                if (!names.contains("localhost")) {
                    names.add("localhost");
                }
                tlsFiles = SelfSignedTls.generate(names.stream().distinct().toList(), dir);
            }
            return Optional.of(tlsFiles.load());
        } catch (TlsMaterialException | IOException e) {
            throw new ParameterException(spec.commandLine(), "TLS: " + e.getMessage());
        }
    }

    Optional<HostPort> nodeTls(int number) {
        return tlsAddress == null ? Optional.empty()
                : Optional.of(new HostPort(netns != null ? nodeHost(number) : tlsAddress.host(),
                        nodeTlsPort(number)));
    }

    private int nodeTlsPort(int number) {
        return tlsBase != 0 ? tlsBase + number - 1 : nodeSip(number).port() + NODE_TLS_OFFSET;
    }

    /**
     * How fast the balancer's warm-up may go: {@link #WARMUP_SHARE_PERCENT}
     * of the per-source limit the balancer holds its own address to, and
     * never above {@link #BALANCER_WARMUP_RATE}.
     */
    static int balancerWarmupRate(SourceLimits limits) {
        if (!limits.enabled()) {
            return BALANCER_WARMUP_RATE;
        }
        return Math.max(1, Math.min(BALANCER_WARMUP_RATE, limits.ratePerSecond() * WARMUP_SHARE_PERCENT / 100));
    }

    private static String randomSecret() {
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private HostPort nodeSip(int number) {
        return new HostPort(nodeHost(number), sip.port() + number);
    }

    /**
     * Runs the balancer's UDP and TCP paths hot before the cluster says it
     * is ready: REGISTER queries (no Contact, so nothing is written) for
     * AORs of the default domain, through the balancer to the nodes and back,
     * paced under the balancer's own per-source limit since the warm-up shares
     * its source address with the phones and load generators of this host.
     * A node answers each with 200 or, where it authenticates, the balancer
     * answers 401 itself. As many queries as a node's warm-up has flows: a
     * flood of REGISTERs without credentials as the cluster's first traffic
     * found the balancer still compiling the path that answers it (with
     * {@code -Xlog:jit+compilation}: ~990 compilations in the flood's first
     * second after a warm-up of 5,000 queries at 2,000/s, 124–183 after
     * 20,000 at 4,000/s), and its socket buffer overflowed meanwhile. The
     * cluster says it is ready once the compiler has caught up with the
     * warm-up ({@link CompilerQuiet}). Best effort: what fails is said and
     * the cluster starts anyway.
     */
    private void warmBalancer(PrintWriter out) {
        if (warmUp == 0) {
            return;
        }
        HostPort at = balancer.address();
        InetSocketAddress target = new InetSocketAddress(at.host(), at.port());
        String domain = servedDomains().get(0);
        try {
            int rate = balancerWarmupRate(balancer.sourceGuard().limits());
            // TCP first: code the UDP path made hot and the optimiser compiled for datagrams alone was thrown
            // away when the first framed message reached it, and compiled again only under the next load.
            WarmupLoad.Result tcp = new WarmupLoad(target, domain, Optional.empty(), 500, 8, true, rate)
                    .runTcp(warmUp / 10, NodeWarmup.BUDGET);
            WarmupLoad.Result udp = new WarmupLoad(target, domain, Optional.empty(), 500, 32, true, rate)
                    .run(warmUp, NodeWarmup.BUDGET);
            Duration compiling = CompilerQuiet.await(BALANCER_COMPILER_WAIT);
            out.println("p2psip cluster: balancer warmed up with " + udp.started() + " UDP and " + tcp.started()
                    + " TCP REGISTER queries (" + (udp.lost() + tcp.lost()) + " unanswered; compiler quiet after "
                    + String.format(Locale.ROOT, "%.1f s)", compiling.toMillis() / 1e3));
        } catch (IOException e) {
            out.println("p2psip cluster: the balancer's warm-up stopped early: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private List<String> servedDomains() {
        return domains.isEmpty() ? List.of(lbHost()) : domains;
    }

    private Optional<HostPort> nodeAdmin(int number) {
        return adminBase == 0 ? Optional.empty() : Optional.of(new HostPort(nodeHost(number), adminBase + number - 1));
    }

    /** Node {@code number}'s (1-based) metrics endpoint: {@code --metrics-base} + number - 1 on its host. */
    Optional<HostPort> nodeMetrics(int number) {
        return metricsBase == 0 ? Optional.empty()
                : Optional.of(new HostPort(nodeHost(number), metricsBase + number - 1));
    }

    /** The balancer's and the nodes' SIP addresses, TLS ones included: all of them name the default domain. */
    private List<HostPort> aliases() {
        List<HostPort> aliases = new ArrayList<>();
        aliases.add(lbSip());
        for (int i = 1; i <= nodeCount; i++) {
            aliases.add(nodeSip(i));
        }
        if (tlsAddress != null) {
            aliases.add(lbTls());
            for (int i = 1; i <= nodeCount; i++) {
                aliases.add(nodeTls(i).orElseThrow());
            }
        }
        return aliases;
    }

    /**
     * Every node learns the balancer's and the other nodes' addresses as
     * aliases of the default domain, and names the balancer in Record-Route.
     */
    private List<String> trustFlags() {
        List<String> flags = new ArrayList<>();
        for (String d : servedDomains()) {
            flags.addAll(List.of("--domain", d));
        }
        for (HostPort alias : aliases()) {
            flags.addAll(List.of("--alias", alias.toString()));
        }
        // Dialogs are record-routed through the balancer, so any live node carries a call's later requests.
        flags.addAll(List.of("--record-route", lbSip().toString()));
        if (tlsAddress != null) {
            flags.addAll(List.of("--record-route-tls", lbTls().toString()));
        }
        flags.addAll(List.of("--auth", auth.flag(), "--digest-algorithms", digestAlgorithms));
        return flags;
    }

    /**
     * The flush policy, which the nodes' data directories and accounting share, and node {@code number}'s own
     * directory under {@code --data-dir} if one was given.
     */
    List<String> dataDirFlags(int number) {
        FlushPolicy flush = dataDir.flushPolicy(spec.commandLine());
        List<String> flags = new ArrayList<>(List.of("--flush-count", Integer.toString(flush.count()),
                "--flush-ms", Long.toString(flush.interval().toMillis())));
        dataDir.dataDir(spec.commandLine()).ifPresent(d -> flags.addAll(List.of("--data-dir",
                d.path().resolve("node-" + number).toString())));
        return flags;
    }

    private Optional<HostPort> nodeOverlay(int number) {
        return "local".equals(dht) ? Optional.empty()
                : Optional.of(new HostPort(nodeHost(number), overlayBase + number - 1));
    }

    private Child spawn(int number) throws StartFailure {
        HostPort nodeSip = nodeSip(number);
        Optional<HostPort> overlay = nodeOverlay(number);
        List<String> command = new ArrayList<>();
        if (hosts != null) {
            command.addAll(hosts.host(nodeName(number)).exec());
        }
        command.addAll(javaCommand());
        command.addAll(List.of(P2psip.class.getName(), "node", "--dht", dht, "--sip", nodeSip.toString(),
                "--replicas", Integer.toString(replicas())));
        overlay.ifPresent(o -> command.addAll(List.of("--overlay", o.toString())));
        if (number > 1) {
            nodeOverlay(1).ifPresent(seed -> command.addAll(List.of("--bootstrap", seed.toString())));
        }
        Optional<HostPort> admin = nodeAdmin(number);
        admin.ifPresent(a -> command.addAll(List.of("--admin", a.toString())));
        Optional<HostPort> metrics = nodeMetrics(number);
        metrics.ifPresent(m -> command.addAll(List.of("--metrics", m.toString())));
        logLevel.given().ifPresent(l -> command.addAll(List.of("--log-level", l)));
        command.addAll(dataDirFlags(number));
        command.addAll(trustFlags());
        command.addAll(protection.nodeFlags());
        command.addAll(accountingFlags);
        command.addAll(List.of("--warm-up", Integer.toString(warmUp)));
        nodeTls(number).ifPresent(t -> command.addAll(List.of("--tls", t.toString(),
                "--tls-cert", tlsFiles.certificate().toString(), "--tls-key", tlsFiles.key().toString())));
        Process p;
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            // Through the environment, not argv, so the secret stays out of the process list.
            builder.environment().remove(ClusterSecrets.LEGACY_ENV);
            builder.environment().put(ClusterSecrets.ENV, clusterSecret);
            builder.environment().putAll(accounting.nodeEnvironment());
            p = builder.start();
        } catch (IOException e) {
            throw new StartFailure("cannot start node " + number + ": " + e.getMessage());
        }
        Child child = new Child(number, nodeSip, overlay, admin, metrics, p, new CopyOnWriteArrayList<>(),
                new CompletableFuture<>());
        children.add(child);
        Thread pump = new Thread(() -> pump(child), "p2psip-cluster-node-" + number);
        pump.setDaemon(true);
        pump.start();
        return child;
    }

    /** Copies a node's output to stderr, tagged with its number, and notices its ready line. */
    private void pump(Child child) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.process().getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                child.output().add(line);
                System.err.println("[node " + child.number() + "] " + line);
                if (line.contains(READY_TEXT)) {
                    child.ready().complete(null);
                }
            }
        } catch (IOException e) {
            // The process is gone; its exit is reported below.
        }
        child.ready().completeExceptionally(new IllegalStateException("exited"));
    }

    /** Waits up to {@link #NODE_START} for {@code c} to say it is ready. */
    private void awaitReady(Child c) throws StartFailure {
        try {
            c.ready().get(NODE_START.toNanos(), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new StartFailure("node " + c.number() + " (sip:" + c.sip() + ") did not start within "
                    + NODE_START.toSeconds() + " s");
        } catch (java.util.concurrent.ExecutionException e) {
            throw new StartFailure("node " + c.number() + " (sip:" + c.sip() + ") failed to start: " + lastWords(c));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StartFailure("interrupted while starting the nodes");
        }
    }

    /** The node's own one-line error, or how it ended. */
    private static String lastWords(Child c) {
        try {
            c.process().waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (int i = c.output().size() - 1; i >= 0; i--) {
            String line = c.output().get(i).strip();
            if (!line.isEmpty()) {
                return line;
            }
        }
        return c.process().isAlive() ? "no output" : "exited with code " + c.process().exitValue();
    }

    private void watchForExits(PrintWriter out) {
        for (Child c : children) {
            c.process().onExit().thenAccept(p -> {
                if (!stopping.get()) {
                    System.err.println("p2psip cluster: node " + c.number() + " (pid " + p.pid() + ", sip:" + c.sip()
                            + ") exited with code " + p.exitValue() + "; the balancer routes around it");
                }
            });
        }
    }

    /** The hosts {@code --netns} asks for: a node host per node and the client hosts, the bridge addressed. */
    private NamespaceHosts makeHosts() throws NamespaceHostsException {
        Map<String, Integer> octets = new LinkedHashMap<>();
        for (int i = 1; i <= nodeCount; i++) {
            octets.put(nodeName(i), NODE_OCTET + i);
        }
        for (int k = 1; k <= netnsClients(); k++) {
            octets.put("c" + k, CLIENT_OCTET + k);
        }
        return NamespaceHosts.create(netns, octets, true);
    }

    private void printHosts(PrintWriter out) {
        out.println("p2psip cluster: hosts on bridge " + hosts.bridge() + " " + netns + ".0/24: balancer on this "
                + "machine " + lbHost());
        for (NamespaceHosts.Host h : hosts.hosts()) {
            out.println("p2psip cluster: host " + h.name() + " " + h.address() + " (ip netns exec " + h.namespace()
                    + " ...)");
        }
        out.println("p2psip cluster: if this process is killed, remove them with: ip netns del NAME; ip link del "
                + hosts.bridge());
        out.flush();
    }

    private static String nodeName(int number) {
        return "n" + number;
    }

    /** The balancer's host: the bridge's address with --netns, else the --sip host. */
    private String lbHost() {
        return netns != null ? netns + ".1" : sip.host();
    }

    private HostPort lbSip() {
        return new HostPort(lbHost(), sip.port());
    }

    private HostPort lbTls() {
        return netns != null ? new HostPort(lbHost(), tlsAddress.port()) : tlsAddress;
    }

    /** Node {@code number}'s host: its own with --netns, else the --sip host. */
    private String nodeHost(int number) {
        return netns != null ? netns + "." + (NODE_OCTET + number) : sip.host();
    }

    /** Stops the balancer, SIGTERMs every node, and SIGKILLs those that outstay {@link #NODE_STOP}. */
    private void stopAll() {
        if (!stopping.compareAndSet(false, true)) {
            return;
        }
        MetricsServer exporter = balancerMetrics;
        if (exporter != null) {
            exporter.close();
        }
        SipBalancer lb = balancer;
        if (lb != null) {
            lb.close();
        }
        for (Child c : children) {
            c.process().destroy();
        }
        long deadline = System.nanoTime() + NODE_STOP.toNanos();
        for (Child c : children) {
            try {
                if (!c.process().waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    c.process().destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                c.process().destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        NamespaceHosts made = hosts;
        if (made != null) {
            made.close();
        }
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // Already shutting down: the hook runs anyway and finds everything stopped.
        }
    }

    /**
     * This JVM's java binary, its flags (minus a debugger agent, whose port
     * the children could not share) and its class path.
     */
    static List<String> javaCommand() {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!arg.startsWith("-agentlib:jdwp") && !arg.startsWith("-Xrunjdwp")) {
                command.add(arg);
            }
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        return command;
    }

    /** Fails before any node starts when the balancer's port is taken. */
    private static void checkFree(HostPort address) throws StartFailure {
        InetAddress ip;
        try {
            ip = InetAddress.getByName(address.host());
        } catch (UnknownHostException e) {
            throw new StartFailure("unknown host '" + address.host() + "'");
        }
        try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(ip, address.port()))) {
            udp.getLocalPort();
        } catch (IOException e) {
            throw new StartFailure("UDP port " + address + " is already in use");
        }
        try (ServerSocket tcp = new ServerSocket()) {
            tcp.setReuseAddress(true);
            tcp.bind(new InetSocketAddress(ip, address.port()));
        } catch (IOException e) {
            throw new StartFailure("TCP port " + address + " is already in use");
        }
    }

    /** A start-up failure with its one-line reason. */
    private static final class StartFailure extends Exception {
        StartFailure(String message) {
            super(message, null, false, false);
        }
    }
}
