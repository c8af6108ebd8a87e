package org.p2psip.loadtest.bench;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;

import org.p2psip.core.tls.SelfSignedTls;
import org.p2psip.core.tls.TlsMaterial;
import org.p2psip.core.tls.TlsMaterialException;

/**
 * Runs load against a target: the programmatic entry point behind
 * {@code p2psip bench} and the scale benchmark.
 *
 * <pre>
 * LoadReport r = LoadRun.run(LoadSpec.of(Scenario.REGISTER, target).withRate(2000).withCount(20_000));
 *
 * try (LoadRun run = LoadRun.open(spec)) {          // lanes, UAS, UAS registrations
 *     MaxRateReport m = run.searchMaxRate(spec, RateSearchSpec.DEFAULT, Progress.NONE);
 * }
 * </pre>
 *
 * <p>{@link #open} sets up what every measurement shares: one lane (socket
 * and event-loop thread) per {@code threads}, and for call and message the
 * built-in UAS with its AORs registered. {@link #measure} can then run any
 * number of times with other rates, counts and first indices. Each
 * measurement gets a fresh run tag, so its Call-IDs, tags and AORs are new.
 */
public final class LoadRun implements AutoCloseable {

    private static final SecureRandom RANDOM = new SecureRandom();

    private final LoadSpec spec;
    private final EventLoopGroup group;
    private final List<Lane> lanes;
    private final List<DigestSession> digests;
    private final BuiltInUas uas;
    private final String calleePrefix;
    private final LongAdder dropped;

    private LoadRun(LoadSpec spec, EventLoopGroup group, List<Lane> lanes, List<DigestSession> digests, BuiltInUas uas,
                    String calleePrefix, LongAdder dropped) {
        this.spec = spec;
        this.group = group;
        this.lanes = lanes;
        this.digests = digests;
        this.uas = uas;
        this.calleePrefix = calleePrefix;
        this.dropped = dropped;
    }

    /** One measurement with everything set up and torn down around it. */
    public static LoadReport run(LoadSpec spec) {
        return run(spec, Progress.NONE);
    }

    /** One measurement, reporting progress. */
    public static LoadReport run(LoadSpec spec, Progress progress) {
        try (LoadRun run = open(spec, progress)) {
            return run.measure(spec, progress);
        }
    }

    /** Sets up lanes (and the UAS with its registrations, for call and message). */
    public static LoadRun open(LoadSpec spec) {
        return open(spec, Progress.NONE);
    }

    /**
     * Sets up lanes and UAS, reporting the progress of the UAS's
     * registrations; with authentication, first provisions the bench users
     * when the spec names admin endpoints.
     */
    public static LoadRun open(LoadSpec spec, Progress progress) {
        InetSocketAddress target = Sockets.resolve(spec.target().host(), spec.target().port());
        InetAddress local = Sockets.local(spec.localHost(), target);
        if (spec.auth().required() && !spec.auth().admin().isEmpty()) {
            BenchUsers.provision(spec.auth(), spec.effectiveDomain(), spec.scenario().needsUas() ? spec.aors() : 0);
        }
        EventLoopGroup group = new NioEventLoopGroup(spec.threads());
        List<Lane> lanes = new ArrayList<>();
        List<DigestSession> digests = new ArrayList<>();
        BuiltInUas uas = null;
        LongAdder dropped = new LongAdder();
        LoadRun run = null;
        try {
            for (int i = 0; i < spec.threads(); i++) {
                lanes.add(Lane.open(group.next(), spec.transport(), local, target, spec.target().host(),
                        spec.tls().trust(), dropped));
                digests.add(spec.auth().required() ? new DigestSession(spec.auth().password(), tag() + i) : null);
            }
            String calleePrefix = spec.auth().required() ? BenchAuth.CALLEE_PREFIX : "callee-" + tag() + "-";
            if (spec.scenario().needsUas()) {
                uas = BuiltInUas.start(local, 0, 1, spec.effectiveUasTransport() == BenchTransport.TLS
                        ? new BuiltInUas.TlsSide(local, 0, uasMaterial(spec, local)) : null);
            }
            run = new LoadRun(spec, group, lanes, digests, uas, calleePrefix, dropped);
            if (uas != null) {
                run.registerCallees(progress);
            }
            return run;
        } catch (RuntimeException e) {
            if (run != null) {
                run.close();
            } else {
                lanes.forEach(Lane::close);
                if (uas != null) {
                    uas.close();
                }
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            }
            throw e;
        }
    }

    /**
     * Runs {@code step}'s flows: its scenario's setup first if it has one
     * (reregister's first pass), then the measured flows. The step's
     * scenario, target, transport and threads must be those this run was
     * opened with.
     */
    public LoadReport measure(LoadSpec step, Progress progress) {
        if (step.scenario() != spec.scenario() || !step.target().equals(spec.target())
                || step.transport() != spec.transport() || step.threads() != spec.threads()) {
            throw new IllegalArgumentException("a measurement must keep the scenario, target, transport and threads");
        }
        String runTag = tag();
        String userPrefix = "b" + runTag + "-";
        Scenario scenario = step.scenario();
        if (scenario == Scenario.REREGISTER) {
            LoadReport setup = phase("setup", runTag, userPrefix, scenario::setupFlow, step.withRate(step.setupRate()),
                    progress);
            requireClean("registering the AORs to refresh", setup);
        }
        return phase(scenario.label(), runTag, userPrefix, scenario::flow, step, progress);
    }

    /**
     * Searches for the highest rate at which {@code base}'s scenario holds
     * {@code search}'s criteria. {@code base}'s count and duration are the
     * budget of the whole search: it stops before a step that would exceed
     * either. Steps use consecutive AOR indices, so every registration is
     * new.
     */
    public MaxRateReport searchMaxRate(LoadSpec base, RateSearchSpec search, Progress progress) {
        return searchMaxRate(base, search, progress, StepListener.NONE);
    }

    /** As {@link #searchMaxRate(LoadSpec, RateSearchSpec, Progress)}, telling {@code listener} around each step. */
    public MaxRateReport searchMaxRate(LoadSpec base, RateSearchSpec search, Progress progress, StepListener listener) {
        MaxRateSearch s = new MaxRateSearch(search.startRate(), search.growth(), search.precision(), search.maxSteps());
        List<MaxRateReport.SearchStep> steps = new ArrayList<>();
        long budget = base.count();
        long deadline = System.nanoTime() + base.duration().toNanos();
        long index = base.firstIndex();
        double stepSeconds = search.stepDuration().toNanos() / 1e9;
        // A step's verdict needs answers, not the last straggler: a few p99 bounds are plenty.
        Duration drain = Duration.ofMillis((long) Math.max(2000, 4 * search.criteria().p99BoundMillis()));
        LoadReport best = null;
        String stoppedBy = "converged";
        OptionalDouble next = s.nextRate();
        while (next.isPresent()) {
            double rate = next.getAsDouble();
            long count = (long) Math.ceil(rate * stepSeconds);
            if (count > budget) {
                stoppedBy = "count";
                break;
            }
            if (System.nanoTime() + search.stepDuration().toNanos() + drain.toNanos() > deadline) {
                stoppedBy = "duration";
                break;
            }
            listener.starting(steps.size(), rate);
            LoadReport r = measure(base.withRate(rate).withCount(count)
                    .withDuration(search.stepDuration().plusSeconds(1)).withFirstIndex(index).withDrain(drain), progress);
            index += count;
            budget -= count;
            boolean held = search.criteria().holds(rate, r.achievedRate(), r.successRatio(), r.p99Millis());
            listener.finished(steps.size(), r, held);
            steps.add(new MaxRateReport.SearchStep(r, held));
            if (held && (best == null || rate > best.offeredRate())) {
                best = r;
            }
            next = s.record(held);
            if (!held) {
                settle();
            }
        }
        if (s.done() && s.steps() >= search.maxSteps() && !"count".equals(stoppedBy) && !"duration".equals(stoppedBy)) {
            stoppedBy = "max-steps";
        }
        return new MaxRateReport(steps, s.best(), best, stoppedBy);
    }

    /**
     * host:port the target reaches the built-in UAS at (its TLS port when
     * the UAS's contacts are over TLS), or null when the scenario has none.
     */
    public String uasAddress() {
        return uas == null ? null : uas.hostPort(spec.effectiveUasTransport());
    }

    /** Messages received that could not be parsed, over the whole run. */
    public long unparsable() {
        return dropped.sum() + (uas == null ? 0 : uas.dropped());
    }

    @Override
    public void close() {
        lanes.forEach(Lane::close);
        if (uas != null) {
            uas.close();
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
    }

    private void registerCallees(Progress progress) {
        String runTag = tag();
        // The contact's transport parameter tells the node how to reach the UAS.
        BenchTransport t = spec.effectiveUasTransport();
        String contact = uas.hostPort(t) + t.uriParameter();
        FlowFactory callees = (index, c, branches) -> {
            return new RegisterFlow(c, branches, calleePrefix + index, RegisterFlow.callId(runTag, index), 1, contact);
        };
        LoadSpec setup = spec.withRate(spec.setupRate()).withCount(spec.aors()).withFirstIndex(0)
                .withDuration(Duration.ofSeconds(Math.max(60, (long) (4 * spec.aors() / spec.setupRate()))));
        requireClean("registering the UAS's AORs", phase("setup", runTag, "unused-", callees, setup, progress));
    }

    /**
     * The UAS's certificate: the one given, else a self-signed one for its
     * address made in memory (a target that checks its peers must be given
     * a certificate it trusts).
     */
    private static TlsMaterial uasMaterial(LoadSpec spec, InetAddress local) {
        if (spec.tls().uasMaterial() != null) {
            return spec.tls().uasMaterial();
        }
        try {
            return SelfSignedTls.inMemory(List.of(local.getHostAddress()));
        } catch (TlsMaterialException e) {
            throw new BenchException("cannot make a certificate for the UAS: " + e.getMessage(), e);
        }
    }

    private LoadReport phase(String name, String runTag, String userPrefix, FlowFactory flows, LoadSpec step,
                             Progress progress) {
        int n = lanes.size();
        LiveCounters live = new LiveCounters();
        List<LaneStats> stats = new ArrayList<>(n);
        List<CompletableFuture<LaneStats>> done = new ArrayList<>(n);
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5);
        int inFlightShare = Math.max(1, step.maxInFlight() / n);
        for (int i = 0; i < n; i++) {
            Lane lane = lanes.get(i);
            long share = step.count() / n + (i < step.count() % n ? 1 : 0);
            FlowContext context = new FlowContext(runTag, step.effectiveDomain(), step.transport().name(),
                    lane.sentBy(), userPrefix, calleePrefix, step.aors(), 3600, i, digests.get(i), step.auth().users());
            LaneStats laneStats = new LaneStats();
            stats.add(laneStats);
            long firstIndex = step.firstIndex() + i;
            OpenLoopPacer pacer = new OpenLoopPacer(start, step.rate() / n, share, step.duration().toNanos());
            done.add(lane.run(wire -> new LaneEngine(context, flows, firstIndex, n, pacer,
                    step.transport().reliable(), step.timers(), step.drainNanos(), inFlightShare,
                    step.honourRetryAfter(), laneStats, live,
                    wire), laneStats));
        }
        CompletableFuture<Void> all = CompletableFuture.allOf(done.toArray(CompletableFuture[]::new));
        long began = System.nanoTime();
        // Every lane ends by itself within duration + drain; the margin only guards against a stuck event loop.
        long limit = began + step.duration().toNanos() + step.drainNanos() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                all.get(200, TimeUnit.MILLISECONDS);
                break;
            } catch (TimeoutException e) {
                progress.update(name, step.count(), live, (System.nanoTime() - began) / 1e9);
                if (System.nanoTime() > limit) {
                    throw new BenchException("the " + name + " phase did not end in time");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BenchException("interrupted");
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                throw cause instanceof BenchException b ? b : new BenchException(String.valueOf(cause.getMessage()), cause);
            }
        }
        progress.update(name, step.count(), live, (System.nanoTime() - began) / 1e9);
        return LoadReport.of(step, step.rate(), stats);
    }

    private static void requireClean(String what, LoadReport r) {
        if (r.failed() > 0) {
            throw new BenchException(String.format(Locale.ROOT, "%s failed: %d of %d (%s)", what, r.failed(),
                    r.attempted(), r.failures()));
        }
    }

    /** After a failed step the target may still be working off a backlog; the next step should not inherit it. */
    private static void settle() {
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String tag() {
        // The top bit set gives at least 12 base-36 digits; eight are plenty to tell runs apart.
        return Long.toString((RANDOM.nextLong() >>> 2) | (1L << 61), 36).substring(0, 8);
    }
}
