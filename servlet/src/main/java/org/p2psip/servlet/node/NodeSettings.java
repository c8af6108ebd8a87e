package org.p2psip.servlet.node;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.store.DataDir;
import org.p2psip.core.tls.TlsListener;
import org.p2psip.servlet.accounting.AccountingSettings;

/**
 * Everything needed to start one front node, as assembled from the command
 * line or by a test.
 *
 * @param sip            where the node listens for SIP on UDP and TCP; port 0 picks a port free on both
 * @param dht            the DHT backend's name ({@code local}, {@code chord}, ...)
 * @param overlay        where the DHT overlay listens, for backends that have one
 * @param bootstrap      existing overlay members to join
 * @param replicas       copies of every registration in the DHT
 * @param dhtOptions     backend-specific settings ({@code cluster-name}, {@code client}, ...)
 * @param policy         the registrar's expiry and contact limits
 * @param dhtTimeout     how long a SIP transaction waits for the DHT before answering 500
 * @param sipThreads     JAIN-SIP's message-processing threads
 * @param clock          the time every binding expiry is measured against
 * @param trust          served domains, authentication, forking limits, cluster secret, admin endpoint
 * @param protection     per-source limits, overload control, connection and size limits
 * @param tls            where the node also listens for SIP over TLS, and its certificate; empty: no TLS
 * @param advertise      the address other hosts reach the node's SIP port at, written in Via and Record-Route;
 *                       empty: the bound one (a wildcard bind needs it); a port of 0 means the bound port
 * @param metrics        where the node serves its Prometheus metrics ({@code GET /metrics}); empty: nowhere
 * @param accessLog      where the node writes a line per answered transaction ({@link org.p2psip.servlet.logging.AccessLog}); empty: nowhere
 * @param dataDir        where the node keeps what must survive its restart, written behind; empty: memory only
 * @param accounting     where and how the node accounts calls and registration changes; empty: it does not
 */
public record NodeSettings(HostPort sip, String dht, Optional<HostPort> overlay, List<HostPort> bootstrap,
                           int replicas, Map<String, String> dhtOptions, RegistrarPolicy policy, Duration dhtTimeout, int sipThreads,
                           Clock clock, TrustSettings trust, ProtectionSettings protection,
                           Optional<TlsListener> tls, Optional<HostPort> advertise,
                           Optional<HostPort> metrics, Optional<Path> accessLog, Optional<DataDir> dataDir,
                           Optional<AccountingSettings> accounting) {

    /**
     * How long a node waits for the location service to settle one request:
     * longer than a read and then a write may each be retried by the overlay
     * backends (chord's and kademlia's {@code operation-timeout-ms}, 10 s
     * each), so a node never answers 500 for a write the DHT then completes;
     * inside a UA's 32 s non-INVITE timeout (RFC 3261 Timer F), so the
     * answer still reaches it. Five seconds turned a few seconds of start-up
     * slowness (five JVMs compiling their hot code on two cores) into
     * hundreds of failed REGISTERs; twelve still failed one in a few
     * thousand while a fresh kademlia node's read waited for enough peers.
     */
    public static final Duration DEFAULT_DHT_TIMEOUT = Duration.ofSeconds(25);
    public static final int DEFAULT_SIP_THREADS = 8;

    public NodeSettings {
        Objects.requireNonNull(sip, "sip");
        Objects.requireNonNull(dht, "dht");
        Objects.requireNonNull(overlay, "overlay");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(dhtTimeout, "dhtTimeout");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(trust, "trust");
        Objects.requireNonNull(protection, "protection");
        Objects.requireNonNull(tls, "tls");
        Objects.requireNonNull(advertise, "advertise");
        Objects.requireNonNull(metrics, "metrics");
        Objects.requireNonNull(accessLog, "accessLog");
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(accounting, "accounting");
        bootstrap = List.copyOf(bootstrap);
        dhtOptions = Map.copyOf(dhtOptions);
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be at least 1, not " + replicas);
        }
        if (sipThreads < 1) {
            throw new IllegalArgumentException("sip threads must be at least 1, not " + sipThreads);
        }
        if (dhtTimeout.isNegative() || dhtTimeout.isZero()) {
            throw new IllegalArgumentException("the DHT timeout must be positive");
        }
    }

    /** A node that accounts nothing. */
    public NodeSettings(HostPort sip, String dht, Optional<HostPort> overlay, List<HostPort> bootstrap, int replicas,
                        Map<String, String> dhtOptions, RegistrarPolicy policy, Duration dhtTimeout, int sipThreads,
                        Clock clock, TrustSettings trust, ProtectionSettings protection, Optional<TlsListener> tls,
                        Optional<HostPort> advertise, Optional<HostPort> metrics, Optional<Path> accessLog,
                        Optional<DataDir> dataDir) {
        this(sip, dht, overlay, bootstrap, replicas, dhtOptions, policy, dhtTimeout, sipThreads, clock, trust,
                protection, tls, advertise, metrics, accessLog, dataDir, Optional.empty());
    }

    /** A node that keeps everything in memory. */
    public NodeSettings(HostPort sip, String dht, Optional<HostPort> overlay, List<HostPort> bootstrap, int replicas,
                        Map<String, String> dhtOptions, RegistrarPolicy policy, Duration dhtTimeout, int sipThreads,
                        Clock clock, TrustSettings trust, ProtectionSettings protection, Optional<TlsListener> tls,
                        Optional<HostPort> advertise, Optional<HostPort> metrics, Optional<Path> accessLog) {
        this(sip, dht, overlay, bootstrap, replicas, dhtOptions, policy, dhtTimeout, sipThreads, clock, trust,
                protection, tls, advertise, metrics, accessLog, Optional.empty());
    }

    /**
     * A single node on the {@code local} backend with the default policy
     * and trust: authentication required, the node's own host its domain.
     */
    public static NodeSettings local(HostPort sip) {
        return new NodeSettings(sip, "local", Optional.empty(), List.of(), 1, Map.of(), RegistrarPolicy.DEFAULT,
                DEFAULT_DHT_TIMEOUT, DEFAULT_SIP_THREADS, Clock.systemUTC(), TrustSettings.DEFAULT,
                ProtectionSettings.DEFAULT, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty());
    }

    public NodeSettings withPolicy(RegistrarPolicy newPolicy) {
        return new NodeSettings(sip, dht, overlay, bootstrap, replicas, dhtOptions, newPolicy, dhtTimeout, sipThreads,
                clock, trust, protection, tls, advertise, metrics, accessLog, dataDir, accounting);
    }

    public NodeSettings withSip(HostPort newSip) {
        return new NodeSettings(newSip, dht, overlay, bootstrap, replicas, dhtOptions, policy, dhtTimeout, sipThreads,
                clock, trust, protection, tls, advertise, metrics, accessLog, dataDir, accounting);
    }

    public NodeSettings withDhtTimeout(Duration timeout) {
        return new NodeSettings(sip, dht, overlay, bootstrap, replicas, dhtOptions, policy, timeout, sipThreads,
                clock, trust, protection, tls, advertise, metrics, accessLog, dataDir, accounting);
    }

    public NodeSettings withTrust(TrustSettings newTrust) {
        return new NodeSettings(sip, dht, overlay, bootstrap, replicas, dhtOptions, policy, dhtTimeout, sipThreads,
                clock, newTrust, protection, tls, advertise, metrics, accessLog, dataDir, accounting);
    }

    public NodeSettings withProtection(ProtectionSettings newProtection) {
        return new NodeSettings(sip, dht, overlay, bootstrap, replicas, dhtOptions, policy, dhtTimeout, sipThreads,
                clock, trust, newProtection, tls, advertise, metrics, accessLog, dataDir, accounting);
    }

    public NodeSettings withTls(Optional<TlsListener> newTls) {
        return new NodeSettings(sip, dht, overlay, bootstrap, replicas, dhtOptions, policy, dhtTimeout, sipThreads,
                clock, trust, protection, newTls, advertise, metrics, accessLog, dataDir, accounting);
    }

    public NodeSettings withSipThreads(int threads) {
        return new NodeSettings(sip, dht, overlay, bootstrap, replicas, dhtOptions, policy, dhtTimeout, threads,
                clock, trust, protection, tls, advertise, metrics, accessLog, dataDir, accounting);
    }

    /** The DHT's view of these settings, for the node actually bound at {@code boundSip}. */
    DhtConfig dhtConfig(HostPort boundSip) {
        return new DhtConfig(boundSip, overlay, bootstrap, replicas, clock, dhtOptions, dataDir);
    }

    public NodeSettings withAdvertise(HostPort newAdvertise) {
        return new NodeSettings(sip, dht, overlay, bootstrap, replicas, dhtOptions, policy, dhtTimeout, sipThreads,
                clock, trust, protection, tls, Optional.of(newAdvertise), metrics, accessLog, dataDir, accounting);
    }

    /** Serves the node's Prometheus metrics at {@code address}. */
    public NodeSettings withMetrics(HostPort address) {
        return new NodeSettings(sip, dht, overlay, bootstrap, replicas, dhtOptions, policy, dhtTimeout, sipThreads,
                clock, trust, protection, tls, advertise, Optional.of(address), accessLog, dataDir, accounting);
    }

    /** Writes a line per answered transaction to {@code file} ({@code -}: standard output). */
    public NodeSettings withAccessLog(Path file) {
        return new NodeSettings(sip, dht, overlay, bootstrap, replicas, dhtOptions, policy, dhtTimeout, sipThreads,
                clock, trust, protection, tls, advertise, metrics, Optional.of(file), dataDir, accounting);
    }

    /** Keeps what must survive a restart in {@code dir}. */
    public NodeSettings withDataDir(DataDir dir) {
        return new NodeSettings(sip, dht, overlay, bootstrap, replicas, dhtOptions, policy, dhtTimeout, sipThreads,
                clock, trust, protection, tls, advertise, metrics, accessLog, Optional.of(dir), accounting);
    }

    /** Accounts calls (and registration changes, if asked) as {@code settings} say. */
    public NodeSettings withAccounting(AccountingSettings settings) {
        return new NodeSettings(sip, dht, overlay, bootstrap, replicas, dhtOptions, policy, dhtTimeout, sipThreads,
                clock, trust, protection, tls, advertise, metrics, accessLog, dataDir, Optional.of(settings));
    }
}
