package org.p2psip.servlet.node;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.p2psip.core.auth.UserCredentials;
import org.p2psip.core.guard.SourceLimits;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.Binding;
import org.p2psip.core.location.ContactSpec;
import org.p2psip.core.location.LocationService;
import org.p2psip.core.location.RegisterOutcome;
import org.p2psip.core.location.RegisterRequest;
import org.p2psip.core.net.HostPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a node's request path hot before the node says it is ready.
 *
 * <p>A fresh JVM answers its first few thousand REGISTERs from interpreted
 * code while the JIT compiler, on the same cores, compiles them: measured
 * here, a 3-node cluster answered a fifth of its first 5,000 REGISTERs at
 * 300/s after more than 500 ms (past a UA's first retransmission, RFC 3261
 * Timer E), and the same cluster took 1,000/s without one a few seconds later.
 * Compiled code belongs to the classes, not to one stack, so a throwaway node
 * in the same JVM — the same SIP stack, registrar and digest code, on the
 * {@code local} backend and a port of its own — is driven with REGISTER
 * flows ({@link WarmupLoad}), then with calls through its proxy ({@link
 * WarmupCalls}: one for every {@value #CALL_SHARE} flows), and closed; the
 * real node's store never sees a warm-up user. The calls are there because
 * the proxy's paths are code of their own: a node warmed with REGISTERs
 * alone still took 300–900 ms to relay its first seconds of INVITEs, and a
 * callee's 200 came back after the node's Timer A had sent the INVITE again.
 *
 * <p>That leaves the backend: a chord or kademlia node's lookups, its RPC
 * client and its peers' servers, a hazelcast member's entry operations, were
 * as cold as the SIP stack (the same cluster, its front paths warm, still
 * answered its first second at 300/s after half a second on average, and did
 * not once the overlay had carried 3,000 REGISTERs). So the node then runs
 * registrations through its own location service on the real DHT
 * ({@link #overlay}): the reads and conditional writes of a REGISTER, each
 * followed by its removal, for AORs of a name of this node's own, spread over
 * the key space as users' are. A warm-up binding lives for the milliseconds
 * between its write and its removal.
 *
 * <p>Both stages take only the CPU the host leaves idle when other
 * processes keep it saturated ({@link IdleCpuShare}): a node joining a
 * loaded cluster on shared cores must not warm itself up on the CPU its
 * peers are serving with. It then reaches {@link #BUDGET} less warm, and
 * the balancer's slow start warms it the rest of the way with a growing
 * share of real requests.
 */
public final class NodeWarmup {

    private static final Logger LOG = LoggerFactory.getLogger(NodeWarmup.class);

    /** REGISTER flows a node runs before it is ready, unless told otherwise. */
    public static final int DEFAULT_FLOWS = 20_000;
    /** The longest a warm-up may take, whatever is left of its flows: a busy machine must still start. */
    public static final Duration BUDGET = Duration.ofSeconds(30);
    /** One warm-up call (INVITE, ACK and BYE through the proxy) for this many front flows. */
    public static final int CALL_SHARE = 10;
    /** The AOR the warm-up calls go to, registered at the caller's own socket. */
    static final String CALLEE = "p2psip-warmup-callee";
    private static final int CALL_WINDOW = 16;
    /**
     * The part of {@link #BUDGET} the REGISTER flows leave to the calls: on
     * a host whose other processes keep it busy the flows alone would take
     * all of it (three nodes and a balancer starting on two cores ran 2,000
     * to 15,000 flows in 30 s), and the proxy would start cold.
     */
    static final Duration CALL_BUDGET = Duration.ofSeconds(6);
    /** One overlay flow (five DHT operations) for this many front flows. */
    public static final int OVERLAY_SHARE = 10;
    private static final int AORS = 500;
    private static final int WINDOW = 32;
    /**
     * Overlay flows in flight at once: each is five DHT operations, and on a
     * machine where many nodes warm up together they all land on the same
     * overlay, so fewer than the front's.
     */
    private static final int OVERLAY_WINDOW = 4;
    /** The overlay is taken to carry requests once this many flows in a row succeeded, each within the bound. */
    public static final int HEALTHY_FLOWS = 50;
    static final Duration HEALTHY_BOUND = Duration.ofMillis(250);
    /** How often a warm-up that yields to a busy host looks again. */
    private static final long GATE_POLL_MILLIS = 20;

    /**
     * How a warm-up went.
     *
     * @param flows   REGISTER flows begun
     * @param ok      flows answered 200
     * @param refused flows answered otherwise
     * @param lost    flows not answered
     * @param calls   calls begun ({@link WarmupCalls}); 0 for the overlay stage
     * @param callsOk calls whose BYE was answered 200
     * @param took    how long the stage took
     */
    public record Report(int flows, int ok, int refused, int lost, int calls, int callsOk, Duration took) {

        /** A report of REGISTER flows only. */
        public Report(int flows, int ok, int refused, int lost, Duration took) {
            this(flows, ok, refused, lost, 0, 0, took);
        }

        /** One line for the start log: "20000 REGISTER flows and 2000 calls in 3.1 s". */
        public String describe() {
            String failed = refused + lost == 0 ? "" : " (" + (refused + lost) + " not answered 200)";
            String callsFailed = calls == callsOk ? "" : " (" + (calls - callsOk) + " not hung up with 200)";
            return flows + " REGISTER flows" + failed + (calls == 0 ? "" : " and " + calls + " calls" + callsFailed)
                    + " in " + seconds();
        }

        /** How long it took, as "3.1 s". */
        public String seconds() {
            return String.format(Locale.ROOT, "%.1f s", took.toMillis() / 1000.0);
        }
    }

    private NodeWarmup() {
    }

    /**
     * Warms up with {@code flows} REGISTER flows (at most {@link #BUDGET})
     * through a throwaway node built like {@code real}: the same
     * authentication and digest algorithms and SIP threads, bound to the same
     * host on a port of its own. Best effort: a warm-up that cannot start
     * logs why and reports nothing run, and the node starts cold.
     */
    public static Report run(NodeSettings real, int flows) {
        if (flows <= 0) {
            return new Report(0, 0, 0, 0, Duration.ZERO);
        }
        long start = System.nanoTime();
        HostPort bind = new HostPort(warmupHost(real.sip().host()), 0);
        NodeSettings throwaway = NodeSettings.local(bind)
                .withTrust(TrustSettings.DEFAULT.withAuthRequired(real.trust().authRequired())
                        .withAlgorithms(real.trust().algorithms()))
                // Its own load is no flood: no per-source limit and no budget for requests without credentials.
                .withProtection(real.protection().withSources(SourceLimits.OFF, Set.of()).withUnauthenticatedRate(0))
                .withSipThreads(real.sipThreads());
        FrontNode node;
        try {
            node = FrontNode.start(throwaway);
        } catch (NodeStartException e) {
            LOG.warn("no warm-up ({}); the node starts cold", e.getMessage());
            return new Report(0, 0, 0, 0, Duration.ofNanos(System.nanoTime() - start));
        }
        try {
            String domain = node.servedDomains().domains().get(0);
            Optional<String> password = Optional.empty();
            if (real.trust().authRequired()) {
                password = Optional.of("warmup");
                List<UserCredentials> users = new ArrayList<>(AORS);
                for (int k = 0; k < AORS; k++) {
                    users.add(UserCredentials.fromPassword(new AddressOfRecord(WarmupLoad.user(k), domain, OptionalInt.empty()),
                            password.get()));
                }
                users.add(UserCredentials.fromPassword(new AddressOfRecord(CALLEE, domain, OptionalInt.empty()),
                        password.get()));
                node.credentials().putAll(users).get(10, TimeUnit.SECONDS);
            }
            HostPort at = node.sipAddress();
            InetSocketAddress target = new InetSocketAddress(at.host(), at.port());
            WarmupLoad load = new WarmupLoad(target, domain, password, AORS, WINDOW, false, 0);
            WarmupLoad.Result r = load.run(flows, BUDGET.minus(CALL_BUDGET), new HostCpuGate());
            WarmupCalls.Result c = calls(target, domain, password, flows / CALL_SHARE,
                    BUDGET.minusNanos(System.nanoTime() - start));
            return new Report(r.started(), r.ok(), r.refused(), r.lost(), c.started(), c.ok(),
                    Duration.ofNanos(System.nanoTime() - start));
        } catch (IOException | RuntimeException | ExecutionException | TimeoutException e) {
            LOG.warn("the warm-up stopped early: {}", e.toString());
            return new Report(0, 0, 0, 0, Duration.ofNanos(System.nanoTime() - start));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Report(0, 0, 0, 0, Duration.ofNanos(System.nanoTime() - start));
        } finally {
            // The RI's stop sleeps a second; the node is ready without waiting for it.
            Thread closer = new Thread(node::close, "p2psip-warmup-close");
            closer.setDaemon(true);
            closer.start();
        }
    }

    /**
     * The call stage of {@link #run}: after the REGISTER flows, so that the
     * proxy's lookups meet a warm registrar. Best effort as well: a stage
     * that cannot run reports no calls.
     */
    private static WarmupCalls.Result calls(InetSocketAddress target, String domain, Optional<String> password,
                                            int calls, Duration left) {
        if (calls <= 0 || left.isNegative() || left.isZero()) {
            return new WarmupCalls.Result(0, 0, 0, 0, Duration.ZERO);
        }
        try {
            return new WarmupCalls(target, domain, CALLEE, password, CALL_WINDOW).run(calls, left,
                    new HostCpuGate());
        } catch (IOException | RuntimeException e) {
            LOG.warn("the warm-up's calls stopped early: {}", e.toString());
            return new WarmupCalls.Result(0, 0, 0, 0, Duration.ZERO);
        }
    }

    /**
     * Registers and removes at least {@code flows} bindings of reserved AORs
     * ({@code p2psip-warmup-RANDOM-K} in the node's default domain) through
     * {@code node}'s location service, at most {@link #OVERLAY_WINDOW} at
     * once, and looks up as many unknown users, as the digest check does;
     * then goes on until the last {@link #HEALTHY_FLOWS} flows in a row
     * succeeded within {@link #HEALTHY_BOUND} ({@link HealthyStreak}), for
     * at most {@code budget} in all. A node that joins a ring still moving
     * ranges to its joiners (sixteen JVMs starting at once on two cores
     * answered "not the owner" for ten seconds after each had run its
     * flows) is not ready until the ring carries its requests again. Best
     * effort, as {@link #run}.
     */
    public static Report overlay(FrontNode node, int flows, Duration budget) {
        long start = System.nanoTime();
        if (flows <= 0) {
            return new Report(0, 0, 0, 0, Duration.ZERO);
        }
        long deadline = start + budget.toNanos();
        String domain = node.servedDomains().domains().get(0);
        String tag = Long.toHexString(new SecureRandom().nextLong() & 0xffff_ffffL);
        HostPort self = node.sipAddress();
        LocationService locations = node.locationService();
        Semaphore window = new Semaphore(OVERLAY_WINDOW);
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        HealthyStreak streak = new HealthyStreak(HEALTHY_FLOWS, HEALTHY_BOUND.toNanos());
        HostCpuGate gate = new HostCpuGate();
        int started = 0;
        try {
            for (int k = 0; (k < flows || !streak.reached()) && System.nanoTime() < deadline; k++) {
                while (!gate.getAsBoolean() && System.nanoTime() < deadline) {
                    TimeUnit.MILLISECONDS.sleep(GATE_POLL_MILLIS);
                }
                if (!window.tryAcquire(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    break;
                }
                started++;
                AddressOfRecord aor = new AddressOfRecord("p2psip-warmup-" + tag + "-" + k, domain,
                        OptionalInt.empty());
                String callId = "warmup-" + tag + "-" + k;
                long began = System.nanoTime();
                ContactSpec contact = new ContactSpec("sip:" + aor.user() + "@" + self, OptionalLong.empty(),
                        Binding.Q_UNSPECIFIED, Map.of());
                locations.register(new RegisterRequest(aor, List.of(contact), OptionalLong.of(60), callId, 1,
                                List.of(), self, "UDP"))
                        .thenCompose(added -> locations.register(new RegisterRequest(aor, List.of(contact),
                                OptionalLong.of(0), callId, 2, List.of(), self, "UDP")))
                        .thenCompose(removed -> node.credentials().find(aor).thenApply(none -> removed))
                        .whenComplete((removed, error) -> {
                            boolean accepted = error == null && removed instanceof RegisterOutcome.Accepted;
                            (accepted ? ok : refused).incrementAndGet();
                            streak.record(accepted, System.nanoTime() - began);
                            window.release();
                        });
            }
            // The last flows finish (or fail) within the DHT's own timeouts; waiting for them keeps the
            // node's first real requests from queueing behind the warm-up's.
            window.tryAcquire(OVERLAY_WINDOW, Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int done = ok.get() + refused.get();
        return new Report(started, ok.get(), refused.get(), started - done, Duration.ofNanos(System.nanoTime() - start));
    }

    /** The node's own host, or loopback when it binds every interface. */
    private static String warmupHost(String host) {
        try {
            return InetAddress.getByName(host).isAnyLocalAddress() ? "127.0.0.1" : host;
        } catch (UnknownHostException e) {
            return "127.0.0.1";
        }
    }
}
