package org.p2psip.servlet.cli;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.dht.DhtBackends;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.store.DataDir;
import org.p2psip.servlet.node.FrontNode;
import org.p2psip.servlet.node.NodeReadiness;
import org.p2psip.servlet.node.NodeSettings;
import org.p2psip.servlet.node.NodeStartException;
import org.p2psip.servlet.node.NodeWarmup;
import org.p2psip.servlet.node.ProtectionSettings;
import org.p2psip.servlet.node.TrustSettings;
import org.p2psip.core.tls.TlsListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code p2psip node}: starts one front node from its flags, logs where it
 * listens, and runs until SIGTERM or Ctrl-C, when a shutdown hook stops it
 * cleanly.
 */
@Command(name = "node", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false,
        description = "Run one P2PSIP front node: a SIP registrar and proxy (RFC 3261) on UDP and TCP "
                + "that keeps its registrations in the chosen DHT. Runs until SIGTERM or Ctrl-C.")
final class NodeCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger("org.p2psip.node");
    /** The longest a warm node waits to take its share of the keys before it says it is ready. */
    private static final long CLAIM_SECONDS = 30;

    @Spec
    CommandSpec spec;

    @Mixin
    ConfigFileOption config = new ConfigFileOption();

    @Option(names = "--dht", paramLabel = "NAME", defaultValue = "local",
            description = "DHT backend holding the registrations: local, hazelcast, chord or kademlia "
                    + "(whichever are on the class path). Default: ${DEFAULT-VALUE}.")
    String dht;

    @Option(names = "--sip", required = true, paramLabel = "HOST:PORT", converter = HostPortConverter.class,
            description = "Address to listen on for SIP; UDP and TCP share the port.")
    HostPort sip;

    @Option(names = "--advertise", paramLabel = "HOST[:PORT]", converter = AdvertiseConverter.class,
            description = "The address other hosts reach this node's SIP port at, written in Via and Record-Route "
                    + "(the port defaults to --sip's). Needed when --sip binds every interface (0.0.0.0 or ::); "
                    + "also for a node behind a port forward. Default: the --sip address.")
    HostPort advertise;

    @Option(names = "--record-route", paramLabel = "HOST:PORT", converter = HostPortConverter.class,
            description = "The cluster's front (its balancer) to name in Record-Route instead of this node, so "
                    + "a dialog's ACK, BYE and re-INVITE come back through the balancer to any live node and a "
                    + "call outlives the node that set it up. Every node must share --cluster-secret. Default: "
                    + "this node.")
    HostPort recordRoute;

    @Option(names = "--record-route-tls", paramLabel = "HOST:PORT", converter = HostPortConverter.class,
            description = "With --record-route: the balancer's TLS address, named towards a side that uses TLS.")
    HostPort recordRouteTls;

    @Option(names = "--overlay", paramLabel = "HOST:PORT", converter = HostPortConverter.class,
            description = "Address the DHT overlay listens on (backends with an overlay).")
    HostPort overlay;

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", split = ",", converter = HostPortConverter.class,
            description = "Existing overlay members to join, comma-separated. None starts a new overlay.")
    List<HostPort> bootstrap = new ArrayList<>();

    @Option(names = "--replicas", paramLabel = "N",
            description = "Copies of each registration kept in the DHT; give every node the same value. With N "
                    + "copies any N-1 nodes may crash at once and every phone stays reachable; with 1, a crashed "
                    + "node's registrations are lost until their phones re-register (up to their Expires, often "
                    + "an hour), so a node joining others (--bootstrap) warns. Each copy costs one more write per "
                    + "REGISTER. Default: ${DEFAULT-VALUE}.")
    int replicas = 1;

    @Option(names = "--cluster-name", paramLabel = "NAME",
            description = "Name of the DHT cluster to form or join; nodes with another name stay apart "
                    + "(hazelcast). Default: the backend's own (p2psip).")
    String clusterName;

    @Option(names = "--dht-client",
            description = "Connect to an existing cluster at --bootstrap as a client instead of joining it "
                    + "as a member, so the bindings live in a cluster you already run (hazelcast: name its "
                    + "members' client ports, opened on every member with --dht-option client-port=PORT).")
    boolean dhtClient;

    @Option(names = {"--cluster-secret", "--overlay-secret"}, paramLabel = "SECRET",
            description = "The secret the cluster's nodes share: overlay peers prove it before they "
                    + "may join or read (chord and kademlia frames carry it with freshness; hazelcast members show a "
                    + "proof made from it when they join), it signs the digest nonces and Record-Route tokens every node accepts, and "
                    + "authenticates admin requests. Prefer the environment variable " + ClusterSecrets.ENV
                    + " (or " + ClusterSecrets.LEGACY_ENV + ") or a --config file only this user can read "
                    + "(mode 0600): both stay out of the process list.")
    String clusterSecret;

    @Option(names = "--domain", paramLabel = "DOMAIN", split = ",",
            description = "A SIP domain this node serves, repeatable or comma-separated; the first is the default, "
                    + "and the realm of its users. Requests for other domains are relayed only for authenticated "
                    + "local users; REGISTERs for them get 403. Default: the host of --sip.")
    List<String> domains = new ArrayList<>();

    @Option(names = "--alias", paramLabel = "HOST[:PORT]", split = ",", converter = AliasConverter.class,
            description = "Another address that means the default domain (the balancer's, the other nodes'), "
                    + "repeatable or comma-separated; the node's own --sip address always does. Default port 5060.")
    List<HostPort> aliases = new ArrayList<>();

    @Option(names = "--auth", paramLabel = "required|none", defaultValue = "required",
            converter = AuthMode.Converter.class,
            description = "required: REGISTERs and requests from local users must carry digest credentials "
                    + "(401/407 until they do). none: anyone may register any AOR of a served domain; for "
                    + "closed test networks only. Default: ${DEFAULT-VALUE}.")
    AuthMode auth;

    @Option(names = "--digest-algorithms", paramLabel = "LIST", defaultValue = "SHA-256,SHA-512-256,MD5",
            description = "Digest algorithms offered, most preferred first. Clients that give up at the first "
                    + "algorithm they do not know (SIPp 3.6, baresip 1.x) need MD5 alone. "
                    + "Default: ${DEFAULT-VALUE}.")
    String digestAlgorithms;

    @Option(names = "--nonce-lifetime", paramLabel = "SECONDS", defaultValue = "300",
            description = "How long a nonce is fresh; after it, a correct answer gets stale=true and a new "
                    + "nonce. Default: ${DEFAULT-VALUE}.")
    long nonceLifetimeSeconds;

    @Option(names = "--max-branches", paramLabel = "N",
            description = "Most targets one request is forked to. Default: ${DEFAULT-VALUE}.")
    int maxBranches = TrustSettings.DEFAULT_MAX_BRANCHES;

    @Option(names = "--max-branches-per-host", paramLabel = "N",
            description = "Most of those at any one host. Default: ${DEFAULT-VALUE}.")
    int maxBranchesPerHost = TrustSettings.DEFAULT_MAX_BRANCHES_PER_HOST;

    @Option(names = "--admin", paramLabel = "HOST:PORT", converter = HostPortConverter.class,
            description = "Where to serve the admin endpoint ('p2psip user ... --cluster HOST:PORT'), "
                    + "authenticated with the cluster secret. Default: none.")
    HostPort admin;

    @Option(names = "--access-log", paramLabel = "FILE",
            description = "Append one line per answered transaction to FILE ('-': standard output): UTC time, this "
                    + "node, method, AOR, status, milliseconds to the answer, Call-ID. Written by a thread of its "
                    + "own; lines that find it behind are dropped, never waited for. Default: off.")
    Path accessLog;

    @Mixin
    DataDirOptions dataDir = new DataDirOptions();

    @Mixin
    AccountingOptions accounting = new AccountingOptions();

    @Mixin
    LogLevelOption logLevel = new LogLevelOption();

    @Option(names = "--metrics", paramLabel = "HOST:PORT", converter = HostPortConverter.class,
            description = "Serve Prometheus metrics over HTTP at http://HOST:PORT/metrics (text format 0.0.4): "
                    + "SIP requests by method and responses by status class, REGISTER and INVITE times to the "
                    + "final response, DHT operation times by operation (get, put, remove, placement) and "
                    + "outcome (ok; conflict, a conditional write that lost its compare-and-set; error), values "
                    + "stored, the share of the key space owned, key operations on owned keys and others, 503s "
                    + "for overload, and the JVM's CPU, memory and collections. Unauthenticated: bind it where "
                    + "only your monitoring can reach it. Default: off.")
    HostPort metrics;

    @Option(names = "--dht-option", paramLabel = "KEY=VALUE", split = ",",
            description = "A backend-specific setting, repeatable or comma-separated; e.g. "
                    + "start-timeout-seconds=15 or any hazelcast.* property for the hazelcast backend.")
    Map<String, String> dhtOptions = new LinkedHashMap<>();

    @Option(names = "--min-expires", paramLabel = "SECONDS",
            description = "Shortest registration accepted; shorter ones get 423. Default: ${DEFAULT-VALUE}.")
    long minExpires = RegistrarPolicy.DEFAULT.minExpires();

    @Option(names = "--default-expires", paramLabel = "SECONDS",
            description = "Registration lifetime when the REGISTER names none. Default: ${DEFAULT-VALUE}.")
    long defaultExpires = RegistrarPolicy.DEFAULT.defaultExpires();

    @Option(names = "--max-expires", paramLabel = "SECONDS",
            description = "Longer registrations are cut to this. Default: ${DEFAULT-VALUE}.")
    long maxExpires = RegistrarPolicy.DEFAULT.maxExpires();

    @Option(names = "--max-contacts", paramLabel = "N",
            description = "Most contacts one address-of-record may hold. Default: ${DEFAULT-VALUE}.")
    int maxContacts = RegistrarPolicy.DEFAULT.maxContacts();

    @Option(names = "--sip-threads", paramLabel = "N",
            description = "Threads that process SIP messages (the receiving thread comes on top). They take "
                    + "the next message of any call, but one call's messages one at a time, in the order they "
                    + "came (a 180 is never overtaken by its 200). Requests never block them, so "
                    + "about the number of cores is enough; more only compete with the thread that reads the "
                    + "socket when the node is overloaded. Default: ${DEFAULT-VALUE}.")
    int sipThreads = NodeSettings.DEFAULT_SIP_THREADS;

    @Option(names = "--warm-up", paramLabel = "N",
            description = "REGISTER flows (and a tenth as many calls) the node runs through a throwaway copy of itself "
                    + "(same JVM, the local backend, a port of its own) before it says it is ready: a fresh JVM answers its first thousands "
                    + "of requests from cold code, late enough for phones to retransmit and give up. Until then the "
                    + "node answers OPTIONS with 503 and P2psip-Ready: no (the balancer sends it nothing), GET /ready "
                    + "on --metrics and --admin with 503, and has not printed its 'listening' line; a chord or "
                    + "kademlia node joining an overlay takes its share of the keys only then. On a host other "
                    + "processes keep busy the warm-up takes only idle CPU. At most 30 s; 0 starts cold. "
                    + "Default: ${DEFAULT-VALUE}.")
    int warmUp = NodeWarmup.DEFAULT_FLOWS;

    @Mixin
    ProtectionOptions protection = new ProtectionOptions();

    @Mixin
    TlsOptions tls = new TlsOptions();

    @Override
    public Integer call() {
        logLevel.apply(spec);
        NodeSettings settings = settings();
        NodeReadiness readiness = NodeReadiness.warming(jvmStartNanos());
        FrontNode node;
        try {
            node = FrontNode.start(settings, readiness);
        } catch (NodeStartException e) {
            OneLineErrors.print(spec.commandLine(), e.getMessage());
            return OneLineErrors.FAILURE;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            node.close();
            stopped.countDown();
        }, "p2psip-shutdown"));
        if (warmUp > 0) {
            LOG.info("p2psip node started on sip:{} dht={}; warming up before it takes load", node.sipAddress(),
                    node.dhtName());
        }
        NodeWarmup.Report front = NodeWarmup.run(settings, warmUp);
        NodeWarmup.Report overlay = NodeWarmup.overlay(node, warmUp / NodeWarmup.OVERLAY_SHARE, NodeWarmup.BUDGET);
        claimShare(node);
        if (warmUp > 0) {
            // The overlay carries this node's requests again once its range has changed hands: the ring
            // that was healthy before the claim is not proof of the ring after it.
            NodeWarmup.overlay(node, NodeWarmup.HEALTHY_FLOWS, NodeWarmup.BUDGET);
        }
        readiness.markReady(System.nanoTime());
        String ready = String.format(Locale.ROOT, " ready in %.1f s", readiness.timeToReady().orElseThrow()
                .toMillis() / 1000.0) + (front.flows() == 0 ? "" : " (warm-up: " + front.describe() + ", "
                + overlay.flows() + " through the DHT in " + overlay.seconds() + ")");
        LOG.info("p2psip node listening on sip:{} (udp, tcp){}{} dht={} domains={} auth={}{}{}{}{}", node.sipAddress(),
                advertise == null ? "" : " bound to " + sip,
                node.tlsAddress().map(a -> " sips:" + a + " (tls)").orElse(""), node.dhtName(),
                node.servedDomains().domains(), auth, node.adminAddress().map(a -> " admin=" + a).orElse(""),
                node.metricsAddress().map(a -> " metrics=http://" + a + "/metrics").orElse(""),
                settings.accounting().map(a -> " acct=" + a.database().redacted()).orElse(""), ready);
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /**
     * A warm node takes its share of the keys (a chord or kademlia joiner
     * held it back while it warmed up) before it says it is ready. A claim
     * that fails or takes longer than {@link #CLAIM_SECONDS} is logged; the
     * node still serves, through the owners the overlay has.
     */
    private static void claimShare(FrontNode node) {
        try {
            node.claimShare().get(CLAIM_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("the node did not take its share of the keys within {} s ({}); the ring keeps serving them",
                    CLAIM_SECONDS, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** When this JVM started, on the {@link System#nanoTime} scale: time to ready counts the JVM's own start. */
    private static long jvmStartNanos() {
        long sinceStartMillis = System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime();
        return System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(Math.max(0, sinceStartMillis));
    }

    private Optional<TlsListener> tls() {
        return tls.listener(spec.commandLine());
    }

    private ProtectionSettings protection() {
        try {
            return protection.settings(spec.commandLine());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private NodeSettings settings() {
        List<String> backends = DhtBackends.names();
        if (!backends.contains(dht)) {
            throw new ParameterException(spec.commandLine(), "unknown DHT backend '" + dht + "' (available: "
                    + String.join(", ", backends) + ")");
        }
        if (replicas < 1) {
            throw new ParameterException(spec.commandLine(), "--replicas must be at least 1");
        }
        if (replicas == 1 && !bootstrap.isEmpty()) {
            LOG.warn("--replicas 1 in an overlay of several nodes: if a node crashes, the phones it held stay "
                    + "unreachable until they re-register; --replicas 2 survives any one crash");
        }
        if (warmUp < 0) {
            throw new ParameterException(spec.commandLine(), "--warm-up must be 0 (none) or more REGISTER flows");
        }
        if (sipThreads < 1 || sipThreads > 256) {
            throw new ParameterException(spec.commandLine(), "--sip-threads must be between 1 and 256");
        }
        RegistrarPolicy policy;
        try {
            policy = new RegistrarPolicy(minExpires, defaultExpires, maxExpires, maxContacts);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        Map<String, String> options = new LinkedHashMap<>(dhtOptions);
        if (clusterName != null) {
            options.put("cluster-name", clusterName);
        }
        if (dhtClient) {
            options.put("client", "true");
        }
        Optional<String> secret = ClusterSecrets.resolve(clusterSecret);
        secret.ifPresent(s -> options.put("overlay-secret", s));
        Optional<DataDir> data = dataDir.dataDir(spec.commandLine());
        if (dht.equals("local") && data.isEmpty()) {
            LOG.warn("--dht local without --data-dir keeps users and bindings in this process only: a restart "
                    + "forgets them; --data-dir DIR keeps them on disk");
        }
        return new NodeSettings(sip, dht, Optional.ofNullable(overlay), bootstrap, replicas, options, policy,
                NodeSettings.DEFAULT_DHT_TIMEOUT, sipThreads, Clock.systemUTC(), trust(secret),
                protection(), tls(), Optional.ofNullable(advertise), Optional.ofNullable(metrics),
                Optional.ofNullable(accessLog), data, accounting.settings(spec.commandLine(),
                        data.map(DataDir::path), dataDir.flushPolicy(spec.commandLine())));
    }

    private TrustSettings trust(Optional<String> secret) {
        boolean required = auth.required();
        if (!required) {
            LOG.warn("--auth none: anyone can register, remove or replace any binding of a served domain; "
                    + "use it on closed test networks only");
        }
        if (admin != null && secret.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--admin needs the cluster secret (--cluster-secret or "
                    + ClusterSecrets.ENV + ") to authenticate admin requests");
        }
        try {
            TrustSettings t = TrustSettings.DEFAULT.withDomains(domains).withAliases(aliases).withAuthRequired(required)
                    .withAlgorithms(DigestAlgorithm.parseList(digestAlgorithms))
                    .withNonceLifetime(Duration.ofSeconds(nonceLifetimeSeconds))
                    .withBranchLimits(maxBranches, maxBranchesPerHost);
            for (String d : domains) {
                ServedDomains.of(d);
            }
            t = secret.map(t::withClusterSecret).orElse(t);
            if (recordRouteTls != null && recordRoute == null) {
                throw new IllegalArgumentException("--record-route-tls needs --record-route");
            }
            if (recordRoute != null) {
                t = t.withRecordRoute(recordRoute, Optional.ofNullable(recordRouteTls));
            }
            return admin == null ? t : t.withAdmin(admin);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
