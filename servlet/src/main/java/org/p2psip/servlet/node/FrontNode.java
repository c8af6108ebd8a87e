package org.p2psip.servlet.node;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import javax.sip.IOExceptionEvent;
import javax.sip.ListeningPoint;
import javax.sip.SipProvider;

import org.p2psip.core.auth.CredentialStore;
import org.p2psip.core.auth.DialogTokens;
import org.p2psip.core.auth.NonceCountStore;
import org.p2psip.core.auth.StatelessNonces;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtBackends;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.DhtProvider;
import org.p2psip.core.guard.CredentialFreeBudget;
import org.p2psip.core.guard.BadInputLog;
import org.p2psip.core.guard.OverloadGate;
import org.p2psip.core.guard.SourceGuard;
import org.p2psip.core.location.LocationService;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.metrics.DhtLatencies;
import org.p2psip.core.metrics.SipTraffic;
import org.p2psip.core.metrics.TimedDht;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.accounting.AccountingCounts;
import org.p2psip.servlet.accounting.AccountingRecorder;
import org.p2psip.servlet.accounting.AccountingSettings;
import org.p2psip.servlet.accounting.BufferedJdbcSink;
import org.p2psip.servlet.admin.AdminServer;
import org.p2psip.servlet.admin.AdminView;
import org.p2psip.servlet.logging.AccessLog;
import org.p2psip.servlet.auth.DigestAuthenticator;
import org.p2psip.servlet.auth.FailedLogins;
import org.p2psip.servlet.auth.UnansweredChallengeLog;
import org.p2psip.servlet.logging.JainSipLogging;
import org.p2psip.servlet.metrics.MetricsServer;
import org.p2psip.servlet.status.NodeStatusPage;
import org.p2psip.servlet.proxy.Proxy;
import org.p2psip.servlet.proxy.ProxyTrust;
import org.p2psip.servlet.proxy.RecordRoutes;
import org.p2psip.servlet.registrar.Registrar;
import org.p2psip.servlet.registrar.RegistrationCap;
import org.p2psip.servlet.sip.DhtAdmission;
import org.p2psip.servlet.sip.SelfAddress;
import org.p2psip.servlet.sip.SipEndpoint;
import org.p2psip.servlet.stack.EdgeGuards;
import org.p2psip.servlet.stack.PemSecurityManagerProvider;
import org.p2psip.core.tls.TlsListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import gov.nist.javax.sip.EventScanner;
import gov.nist.javax.sip.EventWrapper;
import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.address.AddressFactoryImpl;
import gov.nist.javax.sip.header.HeaderFactoryImpl;
import gov.nist.javax.sip.message.MessageFactoryImpl;

/**
 * One P2PSIP front node: a JAIN-SIP RI stack listening on UDP and TCP at
 * the same address, acting as registrar (RFC 3261 §10) and proxy (§16) on
 * a location service stored in the chosen DHT. The node itself keeps no
 * registration state.
 *
 * <p>Every DHT operation is timed ({@link TimedDht}) into the node's
 * {@link #dhtLatencies()}, which {@code --metrics} serves to Prometheus.
 *
 * <p>With accounting on, the proxy and the registrar hand records to a
 * {@link BufferedJdbcSink}, which writes them behind; {@link #close} gives
 * it a few seconds to write what is waiting once the stack has stopped.
 *
 * <p>{@link #start} returns once the node answers requests; {@link #close}
 * stops the stack and leaves the DHT. Several nodes can run in one JVM.
 */
public final class FrontNode implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FrontNode.class);
    private static final long DHT_START_SECONDS = 60;
    private static final Pattern IP_LITERAL = Pattern.compile("[0-9.]+|\\[?[0-9A-Fa-f:.]+]?");

    private final HostPort sipAddress;
    private final String dhtName;
    private final SipStackImpl stack;
    private final SipProvider provider;
    private final Dht dht;
    private final LocationService locations;
    private final EdgeGuards guards;
    private final String stackName;
    private final ExecutorService completions;
    private final ServedDomains domains;
    private final CredentialStore credentials;
    private final Proxy proxy;
    private final Optional<AdminServer> admin;
    private final Optional<AccessLog> accessLog;
    private final DhtLatencies latencies;
    private final Optional<MetricsServer> metrics;
    private final Optional<BufferedJdbcSink> accounting;
    private final NodeReadiness readiness;
    private final AtomicBoolean closed = new AtomicBoolean();

    private FrontNode(HostPort sipAddress, String dhtName, SipStackImpl stack, SipProvider provider, Dht dht,
                      LocationService locations, EdgeGuards guards, String stackName,
                      ExecutorService completions, ServedDomains domains, CredentialStore credentials, Proxy proxy,
                      Optional<AdminServer> admin, DhtLatencies latencies, Optional<MetricsServer> metrics,
                      Optional<AccessLog> accessLog, Optional<BufferedJdbcSink> accounting, NodeReadiness readiness) {
        this.readiness = readiness;
        this.sipAddress = sipAddress;
        this.accounting = accounting;
        this.accessLog = accessLog;
        this.dhtName = dhtName;
        this.stack = stack;
        this.provider = provider;
        this.dht = dht;
        this.locations = locations;
        this.guards = guards;
        this.stackName = stackName;
        this.completions = completions;
        this.domains = domains;
        this.credentials = credentials;
        this.proxy = proxy;
        this.admin = admin;
        this.latencies = latencies;
        this.metrics = metrics;
    }

    /**
     * Starts a node. Port 0 in {@code settings.sip()} picks a port free on
     * both UDP and TCP.
     *
     * @throws NodeStartException with a one-line reason: busy port, unknown
     *                            host or backend, DHT that would not start
     */
    public static FrontNode start(NodeSettings settings) throws NodeStartException {
        return start(settings, NodeReadiness.immediately(System.nanoTime()));
    }

    /**
     * Starts a node whose readiness is {@code readiness}: one made
     * {@link NodeReadiness#warming} answers OPTIONS and {@code GET /ready}
     * with 503 until its starter marks it ready.
     *
     * @throws NodeStartException as {@link #start(NodeSettings)}
     */
    public static FrontNode start(NodeSettings settings, NodeReadiness readiness) throws NodeStartException {
        JainSipLogging.install();
        InetAddress address;
        try {
            address = InetAddress.getByName(settings.sip().host());
        } catch (UnknownHostException e) {
            throw new NodeStartException("unknown host '" + settings.sip().host() + "'");
        }
        int port = settings.sip().port();
        if (port == 0) {
            port = PortProbe.findFree(address);
        } else {
            PortProbe.requireFree(address, port);
        }
        HostPort bound = new HostPort(address.getHostAddress(), port);
        SelfAddress self = SelfAddress.of(advertised(settings, address, bound));

        DhtProvider backend;
        try {
            backend = DhtBackends.byName(settings.dht());
        } catch (IllegalArgumentException e) {
            throw new NodeStartException(e.getMessage());
        }
        DhtLatencies latencies = new DhtLatencies();
        // Always timed: per operation two clock reads, a future and two striped additions, against a round trip.
        Dht dht = new TimedDht(startDht(backend, settings, bound, !readiness.isReady()), latencies, System::nanoTime);

        String stackName = StackProperties.uniqueStackName(self);
        EdgeGuards guards = edgeGuards(settings.protection(), settings.trust());
        EdgeGuards.register(stackName, guards);
        DhtAdmission dhtAdmission = DhtAdmission.standard(settings.protection().retryAfter());
        ExecutorService completions = completionPool();
        SipTraffic traffic = new SipTraffic();
        SipStackImpl stack = null;
        AdminServer admin = null;
        MetricsServer metrics = null;
        AccessLog accessLog = null;
        BufferedJdbcSink accountingSink = null;
        try {
            if (settings.accessLog().isPresent()) {
                accessLog = openAccessLog(settings.accessLog().get(), self.hostPort());
            }
            AccountingRecorder accounting = AccountingRecorder.OFF;
            if (settings.accounting().isPresent()) {
                AccountingSettings a = settings.accounting().get();
                accountingSink = BufferedJdbcSink.start(a.database(), a.flush(), a.buffer());
                accounting = AccountingRecorder.of(accountingSink, self.hostPort().toString(), settings.clock(),
                        a.registrations());
            }
            if (settings.metrics().isPresent()) {
                // Before the SIP stack: a busy metrics port fails the start without a stack to stop.
                metrics = startMetrics(settings.metrics().get(), latencies, dht, guards, traffic, self.hostPort(),
                        Optional.ofNullable(accountingSink), readiness, dhtAdmission);
            }
            settings.tls().ifPresent(t -> PemSecurityManagerProvider.register(stackName, t.material()));
            stack = new OwnPoolSipStack(StackProperties.forNode(stackName, settings.sipThreads(),
                    settings.tls().isPresent()), settings.sipThreads());
            ListeningPoint udp = stack.createListeningPoint(bound.host(), port, ListeningPoint.UDP);
            ListeningPoint tcp = stack.createListeningPoint(bound.host(), port, ListeningPoint.TCP);
            SipProvider provider = stack.createSipProvider(udp);
            provider.addListeningPoint(tcp);
            Optional<HostPort> ownTls = Optional.empty();
            if (settings.tls().isPresent()) {
                ListeningPoint tls = tlsListeningPoint(stack, settings.tls().get());
                provider.addListeningPoint(tls);
                ownTls = Optional.of(new HostPort(self.host(), tls.getPort()));
            }
            SipEndpoint sip = new SipEndpoint(provider, new MessageFactoryImpl(), new HeaderFactoryImpl(),
                    new AddressFactoryImpl(), self, traffic, Optional.ofNullable(accessLog), guards.sources()::trusted);
            LocationService locations = new LocationService(dht, settings.policy(), settings.clock());
            TrustSettings trust = settings.trust();
            ServedDomains domains = servedDomains(trust, self.hostPort());
            byte[] secret = clusterSecret(trust, backend.name());
            CredentialStore credentials = new CredentialStore(dht, settings.clock());
            Optional<DigestAuthenticator> authenticator = trust.authRequired()
                    ? Optional.of(new DigestAuthenticator(domains, new StatelessNonces(secret, trust.nonceLifetime()),
                            credentials, new NonceCountStore(dht), trust.algorithms(), settings.clock(),
                            new UnansweredChallengeLog(trust.algorithms(), guards.sources()::trusted,
                                    settings.clock()),
                            new FailedLogins(dht, guards.sources()::trusted, settings.clock())))
                    : Optional.empty();
            Registrar registrar = new Registrar(sip, locations, domains, authenticator, settings.dhtTimeout(),
                    settings.clock(), completions,
                    new RegistrationCap(dht::storedEntries, settings.protection().maxRegistrations(),
                            settings.protection().retryAfter()), dhtAdmission, accounting);
            Optional<HostPort> front = frontOf(trust, self);
            RecordRoutes recordRoutes = front.isPresent()
                    ? new RecordRoutes(SelfAddress.of(front.get()), trust.recordRouteTls().map(SelfAddress::of), true)
                    : new RecordRoutes(self, ownTls.map(SelfAddress::of), false);
            Proxy proxy = new Proxy(sip, locations, new ProxyTrust(domains, authenticator, new DialogTokens(secret),
                    trust.maxBranches(), trust.maxBranchesPerHost()), recordRoutes, settings.dhtTimeout(), completions,
                    dhtAdmission, accounting);
            OptionsResponder options = new OptionsResponder(sip, dht::ownedRanges,
                    front.flatMap(FrontNode::resolved), domains, readiness);
            provider.addSipListener(new NodeListener(sip, registrar, proxy, options, guards.input()));
            if (trust.admin().isPresent()) {
                admin = startAdmin(trust.admin().get(), secret, domains, credentials, settings,
                        new AdminView(self.hostPort(), dht, locations, traffic), readiness);
            }
            stack.start();
            return new FrontNode(self.hostPort(), backend.name(), stack, provider, dht, locations, guards,
                    stackName, completions, domains, credentials, proxy, Optional.ofNullable(admin), latencies,
                    Optional.ofNullable(metrics), Optional.ofNullable(accessLog), Optional.ofNullable(accountingSink),
                    readiness);
        } catch (NodeStartException e) {
            stopPartial(stack, admin, metrics, accessLog, accountingSink, dht, completions, stackName);
            throw e;
        } catch (Exception e) {
            stopPartial(stack, admin, metrics, accessLog, accountingSink, dht, completions, stackName);
            throw new NodeStartException("cannot start SIP on " + bound + ": " + oneLine(e), e);
        }
    }

    private static ListeningPoint tlsListeningPoint(SipStackImpl stack, TlsListener tls) throws Exception {
        InetAddress address = InetAddress.getByName(tls.address().host());
        int port = tls.address().port() == 0 ? PortProbe.findFree(address) : tls.address().port();
        if (tls.address().port() != 0) {
            PortProbe.requireFree(address, port);
        }
        return stack.createListeningPoint(address.getHostAddress(), port, ListeningPoint.TLS);
    }

    /**
     * The node's defences. The balancer and the other nodes named as aliases
     * by address are trusted sources: everything they send on behalf of
     * many clients would otherwise count as one flooding source.
     */
    private static EdgeGuards edgeGuards(ProtectionSettings protection, TrustSettings trust) {
        Set<InetAddress> trusted = new HashSet<>(protection.trustedSources());
        for (HostPort alias : trust.aliases()) {
            if (IP_LITERAL.matcher(alias.host()).matches()) {
                try {
                    trusted.add(InetAddress.getByName(alias.host()));
                } catch (UnknownHostException e) {
                    // a literal that does not resolve is not an address anyone sends from
                }
            }
        }
        SourceGuard sources = new SourceGuard(protection.sources(), trusted);
        // Without authentication every request is one without credentials: the budget is for challenges.
        Optional<CredentialFreeBudget> credentialFree = trust.authRequired() && protection.unauthenticatedRate() > 0
                ? Optional.of(new CredentialFreeBudget(protection.unauthenticatedRate(),
                        2 * protection.unauthenticatedRate(), System.nanoTime()))
                : Optional.empty();
        return new EdgeGuards(sources, BadInputLog.standard(),
                new OverloadGate(protection.overloadDelay(), protection.overloadQueue()), protection.retryAfter(),
                protection.maxMessageBytes(), protection.connections(), credentialFree);
    }

    private static AccessLog openAccessLog(Path file, HostPort node) throws NodeStartException {
        try {
            return AccessLog.open(file, node.toString());
        } catch (IOException e) {
            throw new NodeStartException("cannot write the access log " + file + ": " + oneLine(e), e);
        }
    }

    private static AdminServer startAdmin(HostPort address, byte[] secret, ServedDomains domains,
                                          CredentialStore credentials, NodeSettings settings, AdminView view,
                                          NodeReadiness readiness)
            throws NodeStartException {
        if (settings.trust().clusterSecret().isEmpty()) {
            throw new NodeStartException("the admin endpoint needs the cluster secret to authenticate its clients");
        }
        try {
            return AdminServer.start(address, secret, domains, credentials, settings.clock(), view,
                    readiness::isReady);
        } catch (IOException e) {
            throw new NodeStartException("cannot serve the admin endpoint on " + address + ": " + oneLine(e), e);
        }
    }

    /**
     * The front the node record-routes in the name of ({@code --record-route}).
     * One that names this node itself, as a copy of the example configuration
     * on a host without a balancer does, is this node: taken for a front, it
     * made the node consume a caller's credentials and send the request round
     * to itself, to be challenged again, forever.
     */
    private static Optional<HostPort> frontOf(TrustSettings trust, SelfAddress self) {
        Optional<HostPort> front = trust.recordRoute();
        if (front.isPresent() && self.isSentBy(front.get().host(), front.get().port())) {
            LOG.warn("--record-route {} names this node itself; the node record-routes itself, as without the flag "
                    + "(--record-route is the address of a balancer in front of the nodes)", front.get());
            return Optional.empty();
        }
        return front;
    }

    /** The balancer's address as its probes' source will show it; empty when its name does not resolve. */
    private static Optional<InetSocketAddress> resolved(HostPort balancer) {
        InetSocketAddress a = new InetSocketAddress(balancer.host(), balancer.port());
        if (a.isUnresolved()) {
            LOG.warn("cannot resolve the balancer {}: it will not learn which keys this node owns", balancer);
            return Optional.empty();
        }
        return Optional.of(a);
    }

    private static MetricsServer startMetrics(HostPort address, DhtLatencies latencies, Dht dht, EdgeGuards guards,
                                              SipTraffic traffic, HostPort sip, Optional<BufferedJdbcSink> accounting,
                                              NodeReadiness readiness, DhtAdmission dhtAdmission)
            throws NodeStartException {
        try {
            // Both are 503s for overload: one for the SIP queue's delay, one for the work waiting on the DHT.
            return MetricsServer.start(address, dht, latencies, () -> guards.shed() + dhtAdmission.refused(), traffic,
                    new NodeStatusPage(sip, dht, traffic, latencies, System.currentTimeMillis()),
                    () -> accounting.map(BufferedJdbcSink::counts), readiness::isReady, readiness::timeToReady,
                    Optional.of(dhtAdmission.limit()), guards::credentialFreeDropped);
        } catch (IOException e) {
            throw new NodeStartException("cannot serve --metrics on " + address + ": " + oneLine(e), e);
        }
    }

    private static void stopPartial(SipStackImpl stack, AdminServer admin, MetricsServer metrics, AccessLog accessLog,
                                    BufferedJdbcSink accounting, Dht dht, ExecutorService completions,
                                    String stackName) {
        if (admin != null) {
            admin.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        if (accessLog != null) {
            accessLog.close();
        }
        if (stack != null) {
            stack.stop();
        }
        if (accounting != null) {
            accounting.close();
        }
        dht.close();
        completions.shutdownNow();
        EdgeGuards.unregister(stackName);
        PemSecurityManagerProvider.unregister(stackName);
    }

    /** Where the node listens for SIP, on UDP and TCP. */
    public HostPort sipAddress() {
        return sipAddress;
    }

    /** The DHT backend's name. */
    public String dhtName() {
        return dhtName;
    }

    /** Messages dropped unanswered because they could not be answered (RFC 4475 style garbage). */
    public long droppedMessages() {
        return guards.input().dropped();
    }

    /** Messages JAIN-SIP's parser refused, answered with 400 or dropped. */
    public long rejectedMessages() {
        return guards.input().rejected();
    }

    /**
     * Takes on this node's share of the keys, which a node that warms up
     * before it is ready holds back while it does ({@link Dht#claimShare}).
     */
    public CompletableFuture<Void> claimShare() {
        return dht.claimShare();
    }

    /** The location service this node registers into, for inspection. */
    public LocationService locationService() {
        return locations;
    }

    /** The domains this node serves and the addresses that mean the default one. */
    public ServedDomains servedDomains() {
        return domains;
    }

    /** The users' credentials in this node's DHT. */
    public CredentialStore credentials() {
        return credentials;
    }

    /** Where the admin endpoint listens, if it runs. */
    public Optional<HostPort> adminAddress() {
        return admin.map(AdminServer::address);
    }

    /** Where the metrics endpoint listens, if it runs. */
    public Optional<HostPort> metricsAddress() {
        return metrics.map(MetricsServer::address);
    }

    /** How long this node's DHT operations took, by operation and outcome. */
    public DhtLatencies dhtLatencies() {
        return latencies;
    }

    /** The node's defences and their counters: bans, 503s for overload, refused and closed connections. */
    public EdgeGuards edgeGuards() {
        return guards;
    }

    /** Where the node listens for SIP over TLS, if it does. */
    public Optional<HostPort> tlsAddress() {
        for (ListeningPoint lp : provider.getListeningPoints()) {
            if (ListeningPoint.TLS.equalsIgnoreCase(lp.getTransport())) {
                return Optional.of(new HostPort(lp.getIPAddress(), lp.getPort()));
            }
        }
        return Optional.empty();
    }

    /** The accounting counters, if the node accounts calls. */
    public Optional<AccountingCounts> accountingCounts() {
        return accounting.map(BufferedJdbcSink::counts);
    }

    /** The values this node's part of the DHT holds (bindings, users, nonce counts). */
    public long storedEntries() {
        return dht.storedEntries();
    }

    /** Whether the node is ready for its share of the load, and since when. */
    public NodeReadiness readiness() {
        return readiness;
    }

    /** Requests the proxy sent on, one per branch. */
    public long forwardedRequests() {
        return proxy.forwardedRequests();
    }

    /** Stops the SIP stack and leaves the DHT; idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            EventScanner scanner = stack.getEventScanner();
            stopStack();
            if (scanner != null) {
                // The RI's stop() flags its event thread as stopped but leaves it
                // blocked on an empty queue, and that thread is not a daemon: it
                // would keep the JVM alive. One harmless event wakes it to exit.
                scanner.addEvent(new EventWrapper(
                        new IOExceptionEvent(provider, sipAddress.host(), sipAddress.port(), ListeningPoint.UDP), null));
            }
        } finally {
            admin.ifPresent(AdminServer::close);
            metrics.ifPresent(MetricsServer::close);
            accessLog.ifPresent(AccessLog::close);
            // After the stack: the last BYEs it handled are in the buffer.
            accounting.ifPresent(BufferedJdbcSink::close);
            completions.shutdownNow();
            dht.close();
            EdgeGuards.unregister(stackName);
            PemSecurityManagerProvider.unregister(stackName);
        }
    }

    /**
     * Stops the RI's stack, which sleeps a hard-coded second. Its UDP
     * processor iterates its channel list while the channel threads it
     * interrupts remove themselves from it, so stop() can die of a
     * ConcurrentModificationException half-way, before the TCP processor
     * is closed; a second stop() finishes the remaining processors.
     */
    private void stopStack() {
        for (int attempt = 1; attempt <= 3; attempt++) {
            try {
                stack.stop();
                return;
            } catch (RuntimeException e) {
                LOG.debug("JAIN-SIP stop attempt {} failed: {}", attempt, e.toString());
            }
        }
    }

    /** A node that warms up before it is ready joins holding its share of the keys back ({@link #claimShare}). */
    private static Dht startDht(DhtProvider backend, NodeSettings settings, HostPort bound, boolean warming)
            throws NodeStartException {
        DhtConfig config = warming ? settings.dhtConfig(bound).holdingShare() : settings.dhtConfig(bound);
        try {
            return backend.start(config).get(DHT_START_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new NodeStartException("DHT '" + backend.name() + "' failed to start: " + oneLine(e.getCause()), e);
        } catch (TimeoutException e) {
            throw new NodeStartException("DHT '" + backend.name() + "' did not start within " + DHT_START_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NodeStartException("interrupted while starting the DHT");
        }
    }

    /** The configured domains (else the node's own host), with the node's own address as an alias of the first. */
    private static ServedDomains servedDomains(TrustSettings trust, HostPort self) throws NodeStartException {
        List<String> names = trust.domains().isEmpty() ? List.of(self.host()) : trust.domains();
        List<HostPort> aliases = new ArrayList<>();
        aliases.add(self);
        aliases.addAll(trust.aliases());
        try {
            return new ServedDomains(names, aliases);
        } catch (IllegalArgumentException e) {
            throw new NodeStartException(e.getMessage());
        }
    }

    /**
     * The cluster secret, or a random one of this node's own: then nonces
     * and Record-Route tokens are good on this node only, which is right
     * for a single node and a mistake in a cluster, so it says so.
     */
    private static byte[] clusterSecret(TrustSettings trust, String backend) {
        if (trust.clusterSecret().isPresent()) {
            return trust.clusterSecret().get().getBytes(StandardCharsets.UTF_8);
        }
        if (!"local".equals(backend)) {
            LOG.warn("no cluster secret (--cluster-secret or P2PSIP_CLUSTER_SECRET): this node's nonces and "
                    + "Record-Route tokens will not be accepted by the other nodes");
        }
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        return random;
    }

    /**
     * The address written in Via and Record-Route: {@code --advertise} when
     * given (its port, or the bound one), else the bound address. A
     * wildcard bind has no address of its own to offer, and guessing one
     * (the host name's, often 127.0.1.1) hands phones on other hosts an
     * address that does not reach the node, so it is refused.
     */
    static HostPort advertised(NodeSettings settings, InetAddress address, HostPort bound) throws NodeStartException {
        if (settings.advertise().isPresent()) {
            HostPort a = settings.advertise().get();
            return new HostPort(a.host(), a.port() == 0 ? bound.port() : a.port());
        }
        if (address.isAnyLocalAddress()) {
            throw new NodeStartException("--sip " + settings.sip() + " listens on every interface; say which address "
                    + "other hosts reach this node at with --advertise HOST[:PORT]");
        }
        return bound;
    }

    /** Where DHT completions continue when they arrive on a backend's I/O thread. */
    private static ExecutorService completionPool() {
        AtomicInteger n = new AtomicInteger();
        int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
        return new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "p2psip-completion-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    private static String oneLine(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return m.replace('\n', ' ').replace('\r', ' ');
    }
}
