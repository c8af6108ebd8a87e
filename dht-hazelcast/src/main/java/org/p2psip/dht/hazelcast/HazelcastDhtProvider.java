package org.p2psip.dht.hazelcast;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.AdvancedNetworkConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.ServerSocketEndpointConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.instance.impl.HazelcastInstanceFactory;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.DhtException;
import org.p2psip.core.dht.DhtProvider;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.OverlaySecret;
import org.p2psip.core.store.WriteBehindValues;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --dht hazelcast}: each node embeds a Hazelcast member that listens on
 * {@code --overlay} (exactly that port, no auto-increment), joins the members
 * given by {@code --bootstrap} over TCP-IP (multicast and auto-detection off),
 * and keeps the values in an IMap with {@code --replicas - 1} synchronous
 * backups. Hazelcast's open-source edition authenticates neither members nor
 * clients beyond a cluster name that crosses the wire in clear, so with a
 * cluster secret ({@code overlay-secret}) a member speaks only the member
 * protocol on {@code --overlay} (clients only on {@code client-port}, when
 * given), shows a {@link MemberJoinProof} made with the secret, and, as
 * master, admits only joiners whose proof holds, logging each one refused
 * ({@link JoinProofNodeContext}). With {@code --dht-client} ({@code client=true})
 * the node instead connects to the {@code --bootstrap} addresses as a
 * Hazelcast client, so the values live in a cluster someone already runs (its
 * members need this jar on their class path for the entry processors; see
 * {@link WireSerializerHook}, and a client endpoint open).
 *
 * <p>Start-up promises: it never blocks the caller (Hazelcast starts on a
 * thread of its own), and within {@code start-timeout-seconds} (default
 * {@value HazelcastOptions#DEFAULT_START_TIMEOUT_SECONDS}) it either completes
 * with a node that has joined, or fails with a one-line {@link DhtException}:
 * overlay address busy, no bootstrap member reachable or willing to accept it
 * (a Hazelcast member whose seeds all fail would otherwise quietly form a
 * cluster of its own), or no cluster reachable as a client. Phone-home is off,
 * Hazelcast logs through SLF4J, and the {@code hazelcast.*} options override
 * any Hazelcast property set here.
 */
public final class HazelcastDhtProvider implements DhtProvider {

    public static final String NAME = "hazelcast";

    private static final Logger LOG = LoggerFactory.getLogger(HazelcastDhtProvider.class);

    /** Hazelcast keeps at most this many backups of a partition. */
    static final int MAX_BACKUPS = MapConfig.MAX_BACKUP_COUNT;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CompletableFuture<Dht> start(DhtConfig config) {
        HazelcastOptions options;
        try {
            options = HazelcastOptions.parse(config.options());
            if (config.replicas() - 1 > MAX_BACKUPS) {
                throw new DhtException("hazelcast keeps at most " + (MAX_BACKUPS + 1) + " copies; --replicas "
                        + config.replicas() + " is too many");
            }
            if (options.client()) {
                if (config.dataDir().isPresent()) {
                    throw new DhtException("a hazelcast client holds no values to keep: --data-dir needs a member "
                            + "(leave out --dht-client)");
                }
                return startClient(config, options);
            }
            return startMember(config, options);
        } catch (DhtException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static void warnWithoutSecret(HazelcastOptions options, String what) {
        if (options.secret().isEmpty()) {
            LOG.warn("hazelcast {} runs without a cluster secret: any Hazelcast member or client that knows the"
                    + " cluster name '{}' can join and read, change or delete every binding; set --cluster-secret",
                    what, options.clusterName());
        }
    }

    private CompletableFuture<Dht> startMember(DhtConfig config, HazelcastOptions options) {
        HostPort overlay = config.overlay().orElseThrow(() -> new DhtException(
                "the hazelcast backend needs --overlay HOST:PORT for its member to listen on"
                        + " (or --dht-client to use an existing cluster)"));
        List<HostPort> seeds = config.bootstrap().stream().filter(seed -> !sameAddress(seed, overlay)).toList();
        checkCanListen(overlay);
        warnWithoutSecret(options, "member " + overlay);
        Config hz = memberConfig(config, options, overlay, seeds);
        String joining = seeds.isEmpty() ? "" : " joining " + list(seeds);
        Optional<WriteBehindValues> disk;
        try {
            disk = config.keptValues(NAME);
        } catch (DhtException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Dht> started = startBounded("hazelcast member " + overlay, options.startTimeout(), () -> {
            HazelcastInstance instance;
            try {
                instance = options.secret().isPresent()
                        ? HazelcastInstanceFactory.newHazelcastInstance(hz, hz.getInstanceName(),
                                new JoinProofNodeContext(new MemberJoinProof(OverlaySecret.of(options.secret().get()),
                                        options.clusterName())))
                        : HazelcastInstanceFactory.newHazelcastInstance(hz);
            } catch (RuntimeException e) {
                throw memberStartFailure(e, overlay, joining);
            }
            // With TCP-IP join, a member none of whose seeds answers (or accepts it)
            // becomes the master of a cluster of one; for a node told to join, that is failure.
            if (!seeds.isEmpty() && instance.getCluster().getMembers().size() < 2) {
                instance.getLifecycleService().terminate();
                throw new DhtException("hazelcast member " + overlay + " could not join any of " + list(seeds)
                        + " (unreachable, not accepting members, not cluster '" + options.clusterName()
                        + "', or another cluster secret)");
            }
            Peer self = HazelcastDht.peerOf(instance.getCluster().getLocalMember());
            LOG.debug("hazelcast member {} up in cluster '{}' of {} members, {} backup(s) per key", self.id(),
                    options.clusterName(), instance.getCluster().getMembers().size(), config.replicas() - 1);
            return new StartedNode(instance, new HazelcastDht(instance, config.clock(), self, config.replicas() - 1));
        });
        if (disk.isEmpty()) {
            return started;
        }
        WriteBehindValues dir = disk.get();
        // Put back what the directory kept before the node serves; a start that failed leaves the file closed.
        return started.thenCompose(dht -> ((HazelcastDht) dht).keepOnDisk(dir).handle((v, failure) -> {
            if (failure != null) {
                dht.close();
                throw new DhtException("hazelcast member " + overlay + " could not put back the values its data "
                        + "directory kept: " + oneLine(failure), failure);
            }
            return dht;
        })).whenComplete((dht, failure) -> {
            if (failure != null) {
                dir.close();
            }
        });
    }

    private CompletableFuture<Dht> startClient(DhtConfig config, HazelcastOptions options) {
        if (config.bootstrap().isEmpty()) {
            throw new DhtException("hazelcast client mode needs --bootstrap HOST:PORT[,...] naming cluster members");
        }
        warnWithoutSecret(options, "client");
        ClientConfig client = new ClientConfig();
        client.setInstanceName("p2psip-client-" + config.sip() + "-" + shortId());
        client.setClusterName(options.hazelcastClusterName());
        client.getNetworkConfig().setAddresses(config.bootstrap().stream().map(HostPort::toString).toList());
        // Shorter than the start bound, so the client's own "cannot connect" is what the operator reads.
        client.getConnectionStrategyConfig().getConnectionRetryConfig()
                .setClusterConnectTimeoutMillis(Math.max(1_000, options.startTimeout().toMillis() * 3 / 4));
        commonProperties(options).forEach(client::setProperty);
        String target = list(config.bootstrap());
        return startBounded("hazelcast client of " + target, options.startTimeout(), () -> {
            HazelcastInstance instance;
            try {
                instance = HazelcastClient.newHazelcastClient(client);
            } catch (RuntimeException e) {
                throw new DhtException("hazelcast client could not connect to cluster '" + options.clusterName()
                        + "' at any of " + target + " (unreachable, or another cluster name or cluster secret): "
                        + oneLine(e), e);
            }
            try {
                // Dynamic configuration: the backup count travels to the cluster, unless
                // its operator already configured this map differently.
                instance.getConfig().addMapConfig(bindingsMap(config.replicas() - 1));
            } catch (RuntimeException e) {
                LOG.warn("hazelcast cluster keeps its own configuration of map {}: {}", HazelcastDht.MAP_NAME,
                        oneLine(e));
            }
            Peer self = new Peer("client@" + config.sip(), Optional.of(config.sip()));
            LOG.debug("hazelcast client {} connected to cluster '{}' via {}", self.id(), options.clusterName(),
                    target);
            return new StartedNode(instance, new HazelcastDht(instance, config.clock(), self, config.replicas() - 1));
        });
    }

    /** The instance and the handle on it, so a start that lost its race with the timeout can be undone. */
    private record StartedNode(HazelcastInstance instance, HazelcastDht dht) {
    }

    /**
     * Runs a blocking Hazelcast start on a thread of its own and bounds it: the
     * future fails at the deadline, and an instance that comes up after it is
     * terminated rather than leaked.
     */
    private static CompletableFuture<Dht> startBounded(String what, Duration timeout, Supplier<StartedNode> start) {
        CompletableFuture<Dht> result = new CompletableFuture<>();
        Thread starter = new Thread(() -> {
            try {
                StartedNode node = start.get();
                if (!result.complete(node.dht())) {
                    node.instance().getLifecycleService().terminate();
                }
            } catch (DhtException e) {
                result.completeExceptionally(e);
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(new DhtException(what + " failed to start: " + oneLine(e), e));
            }
        }, "p2psip-hz-start");
        starter.setDaemon(true);
        starter.start();
        CompletableFuture.delayedExecutor(timeout.toMillis(), TimeUnit.MILLISECONDS).execute(() ->
                result.completeExceptionally(new DhtException(what + " did not start within "
                        + timeout.toSeconds() + " s")));
        return result;
    }

    private static Config memberConfig(DhtConfig config, HazelcastOptions options, HostPort overlay,
                                       List<HostPort> seeds) {
        Config hz = new Config();
        // Instance names are per JVM; tests and the cluster command run several members in one.
        hz.setInstanceName("p2psip-" + overlay + "-" + shortId());
        hz.setClusterName(options.hazelcastClusterName());
        hz.getJetConfig().setEnabled(false);

        // Advanced networking gives each protocol a listener of its own: the overlay port speaks
        // only the member protocol, and Hazelcast clients get a port only when one is asked for.
        AdvancedNetworkConfig network = hz.getAdvancedNetworkConfig().setEnabled(true);
        network.setMemberEndpointConfig(new ServerSocketEndpointConfig()
                .setPort(overlay.port()).setPortAutoIncrement(false));
        options.clientPort().ifPresent(port -> network.setClientEndpointConfig(new ServerSocketEndpointConfig()
                .setPort(port).setPortAutoIncrement(false)));
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig()
                .setEnabled(true)
                .setConnectionTimeoutSeconds(Math.max(1, Math.min(5, (int) options.startTimeout().toSeconds() / 3)))
                .setMembers(seeds.stream().map(HostPort::toString).toList());

        hz.getMemberAttributeConfig().setAttribute(HazelcastDht.SIP_ATTRIBUTE, config.sip().toString());
        options.secret().ifPresent(secret -> hz.getMemberAttributeConfig().setAttribute(MemberJoinProof.ATTRIBUTE,
                new MemberJoinProof(OverlaySecret.of(secret), options.clusterName()).proofFor(claimed(overlay))));
        hz.addMapConfig(bindingsMap(config.replicas() - 1));

        Map<String, String> properties = new LinkedHashMap<>();
        // Listen on the overlay address only, and advertise it, rather than every interface.
        properties.put("hazelcast.local.localAddress", overlay.host());
        properties.put("hazelcast.socket.bind.any", "false");
        // The master admits a joiner at once instead of waiting to batch joins.
        properties.put("hazelcast.wait.seconds.before.join", "0");
        properties.put("hazelcast.max.wait.seconds.before.join", "0");
        properties.put("hazelcast.max.join.seconds", Long.toString(options.startTimeout().toSeconds()));
        // A crashed member's partitions are promoted to their backups once it is declared
        // dead; Hazelcast's default 60 s would leave a registrar's keys unwritable that long.
        properties.put("hazelcast.heartbeat.interval.seconds", "1");
        properties.put("hazelcast.max.no.heartbeat.seconds", "10");
        // Graceful leave waits for partition hand-over; bounded so a stop cannot hang.
        properties.put("hazelcast.graceful.shutdown.max.wait", "30");
        properties.put("hazelcast.health.monitoring.level", "OFF");
        properties.putAll(commonProperties(options));
        properties.forEach(hz::setProperty);
        return hz;
    }

    /** Properties members and clients share; the user's {@code hazelcast.*} options come last and win. */
    private static Map<String, String> commonProperties(HazelcastOptions options) {
        // Hazelcast reads the logging type from the system property for loggers it makes
        // before an instance's configuration is known; set it unless the operator chose.
        if (System.getProperty("hazelcast.logging.type") == null) {
            System.setProperty("hazelcast.logging.type", "slf4j");
        }
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("hazelcast.logging.type", "slf4j");
        // These machines have no internet; phone-home would only time out.
        properties.put("hazelcast.phone.home.enabled", "false");
        // The node's own shutdown hook closes the DHT (a graceful leave for a member). Hazelcast's
        // hook would also run on the exit after a failed start, and waiting there for a member
        // still trying to join kept such a process alive past a minute.
        properties.put("hazelcast.shutdownhook.enabled", "false");
        if (options.secret().isPresent()) {
            // Hazelcast prefixes every log line with the cluster name, which is derived from the
            // secret and admits whoever presents it; the instance name in the thread names still
            // says which member wrote a line.
            properties.put("hazelcast.logging.details.enabled", "false");
        }
        properties.putAll(options.hazelcastProperties());
        return properties;
    }

    private static MapConfig bindingsMap(int backups) {
        return new MapConfig(HazelcastDht.MAP_NAME)
                .setBackupCount(backups)
                .setAsyncBackupCount(0)
                // Reads go to the owner, which has seen every acknowledged write.
                .setReadBackupData(false);
    }

    /**
     * Fails early, with one line and before Hazelcast logs its own error with a
     * stack trace, when the overlay address is taken or not local. Hazelcast's
     * own bind failure is still mapped (see {@link #memberStartFailure}) for
     * the moment between this probe and its bind.
     */
    private static void checkCanListen(HostPort overlay) {
        try (ServerSocket probe = new ServerSocket()) {
            // As Hazelcast binds: a socket in TIME_WAIT from a previous run does not count as busy.
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(overlay.host(), overlay.port()), 1);
        } catch (BindException e) {
            String reason = String.valueOf(e.getMessage()).contains("in use")
                    ? "address already in use" : String.valueOf(e.getMessage());
            throw new DhtException("hazelcast member cannot listen on overlay " + overlay + ": " + reason, e);
        } catch (IOException | IllegalArgumentException | SecurityException e) {
            throw new DhtException("hazelcast member cannot listen on overlay " + overlay + ": " + oneLine(e), e);
        }
    }

    private static DhtException memberStartFailure(RuntimeException e, HostPort overlay, String joining) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String message = String.valueOf(t.getMessage());
            if (t instanceof BindException || message.contains("already in use")) {
                return new DhtException("hazelcast member cannot listen on overlay " + overlay
                        + ": address already in use", e);
            }
        }
        return new DhtException("hazelcast member " + overlay + " failed to start" + joining + ": " + oneLine(e), e);
    }

    /** The address a member on {@code overlay} claims when it joins, as the master reads it: {@code IP:PORT}. */
    private static String claimed(HostPort overlay) {
        try {
            return InetAddress.getByName(overlay.host()).getHostAddress() + ":" + overlay.port();
        } catch (UnknownHostException e) {
            throw new DhtException("hazelcast member cannot resolve its overlay host " + overlay.host(), e);
        }
    }

    /** Whether two addresses name the same socket, so a node listed in its own bootstrap does not seed itself. */
    private static boolean sameAddress(HostPort a, HostPort b) {
        if (a.port() != b.port()) {
            return false;
        }
        if (a.host().equals(b.host())) {
            return true;
        }
        try {
            return InetAddress.getByName(a.host()).equals(InetAddress.getByName(b.host()));
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static String list(List<HostPort> addresses) {
        return addresses.stream().map(HostPort::toString).collect(Collectors.joining(", "));
    }

    private static String oneLine(Throwable e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int newline = message.indexOf('\n');
        return (newline < 0 ? message : message.substring(0, newline)).trim();
    }

    private static String shortId() {
        return UUID.randomUUID().toString().substring(0, 8);
    }
}
