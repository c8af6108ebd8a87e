package org.p2psip.servlet.node;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sip.IOExceptionEvent;
import javax.sip.ListeningPoint;
import javax.sip.SipProvider;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtBackends;
import org.p2psip.core.dht.DhtProvider;
import org.p2psip.core.location.LocationService;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.logging.JainSipLogging;
import org.p2psip.servlet.proxy.Proxy;
import org.p2psip.servlet.registrar.Registrar;
import org.p2psip.servlet.sip.SelfAddress;
import org.p2psip.servlet.sip.SipEndpoint;
import org.p2psip.servlet.stack.InputCounters;
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
 * <p>{@link #start} returns once the node answers requests; {@link #close}
 * stops the stack and leaves the DHT. Several nodes can run in one JVM.
 */
public final class FrontNode implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FrontNode.class);
    private static final long DHT_START_SECONDS = 60;

    private final HostPort sipAddress;
    private final String dhtName;
    private final SipStackImpl stack;
    private final SipProvider provider;
    private final Dht dht;
    private final LocationService locations;
    private final InputCounters counters;
    private final String stackName;
    private final ExecutorService completions;
    private final AtomicBoolean closed = new AtomicBoolean();

    private FrontNode(HostPort sipAddress, String dhtName, SipStackImpl stack, SipProvider provider, Dht dht,
                      LocationService locations, InputCounters counters, String stackName,
                      ExecutorService completions) {
        this.sipAddress = sipAddress;
        this.dhtName = dhtName;
        this.stack = stack;
        this.provider = provider;
        this.dht = dht;
        this.locations = locations;
        this.counters = counters;
        this.stackName = stackName;
        this.completions = completions;
    }

    /**
     * Starts a node. Port 0 in {@code settings.sip()} picks a port free on
     * both UDP and TCP.
     *
     * @throws NodeStartException with a one-line reason: busy port, unknown
     *                            host or backend, DHT that would not start
     */
    public static FrontNode start(NodeSettings settings) throws NodeStartException {
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
        SelfAddress self = SelfAddress.of(address.isAnyLocalAddress() ? advertised(port) : bound);

        DhtProvider backend;
        try {
            backend = DhtBackends.byName(settings.dht());
        } catch (IllegalArgumentException e) {
            throw new NodeStartException(e.getMessage());
        }
        Dht dht = startDht(backend, settings, bound);

        String stackName = StackProperties.uniqueStackName(self);
        InputCounters counters = InputCounters.register(stackName);
        ExecutorService completions = completionPool();
        SipStackImpl stack = null;
        try {
            stack = new SipStackImpl(StackProperties.forNode(stackName, settings.sipThreads()));
            ListeningPoint udp = stack.createListeningPoint(bound.host(), port, ListeningPoint.UDP);
            ListeningPoint tcp = stack.createListeningPoint(bound.host(), port, ListeningPoint.TCP);
            SipProvider provider = stack.createSipProvider(udp);
            provider.addListeningPoint(tcp);
            SipEndpoint sip = new SipEndpoint(provider, new MessageFactoryImpl(), new HeaderFactoryImpl(),
                    new AddressFactoryImpl(), self);
            LocationService locations = new LocationService(dht, settings.policy(), settings.clock());
            Registrar registrar = new Registrar(sip, locations, settings.dhtTimeout(), settings.clock(), completions);
            Proxy proxy = new Proxy(sip, locations, settings.dhtTimeout(), completions);
            provider.addSipListener(new NodeListener(sip, registrar, proxy, counters));
            stack.start();
            return new FrontNode(self.hostPort(), backend.name(), stack, provider, dht, locations, counters,
                    stackName, completions);
        } catch (Exception e) {
            if (stack != null) {
                stack.stop();
            }
            dht.close();
            completions.shutdownNow();
            InputCounters.unregister(stackName);
            throw new NodeStartException("cannot start SIP on " + bound + ": " + oneLine(e), e);
        }
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
        return counters.dropped();
    }

    /** Messages JAIN-SIP's parser refused, answered with 400 or dropped. */
    public long rejectedMessages() {
        return counters.rejected();
    }

    /** The location service this node registers into, for inspection. */
    public LocationService locationService() {
        return locations;
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
            completions.shutdownNow();
            dht.close();
            InputCounters.unregister(stackName);
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

    private static Dht startDht(DhtProvider backend, NodeSettings settings, HostPort bound) throws NodeStartException {
        try {
            return backend.start(settings.dhtConfig(bound)).get(DHT_START_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new NodeStartException("DHT '" + backend.name() + "' failed to start: " + oneLine(e.getCause()), e);
        } catch (TimeoutException e) {
            throw new NodeStartException("DHT '" + backend.name() + "' did not start within " + DHT_START_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NodeStartException("interrupted while starting the DHT");
        }
    }

    private static HostPort advertised(int port) throws NodeStartException {
        try {
            return new HostPort(InetAddress.getLocalHost().getHostAddress(), port);
        } catch (UnknownHostException e) {
            throw new NodeStartException("bound to a wildcard address and cannot find this host's own: " + e.getMessage());
        }
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
