package org.p2psip.loadtest.scale;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import org.p2psip.core.net.HostPort;
import org.p2psip.loadtest.bench.BenchAuth;
import org.p2psip.loadtest.bench.BenchUsers;
import org.p2psip.loadtest.bench.LoadReport;
import org.p2psip.loadtest.bench.LoadRun;
import org.p2psip.loadtest.bench.LoadSpec;
import org.p2psip.loadtest.bench.MaxRateReport;
import org.p2psip.loadtest.bench.MaxRateSearch;
import org.p2psip.loadtest.bench.Progress;
import org.p2psip.loadtest.bench.RateSearchSpec;
import org.p2psip.loadtest.bench.Scenario;
import org.p2psip.loadtest.bench.StepListener;

/**
 * The scale benchmark: for each backend and node count, a cluster with
 * the balancer in front ({@link ClusterProcess}), a warm-up and a max-rate
 * search per scenario, then tear-down — always, on failure and on Ctrl-C
 * too. The result files are rewritten after every cluster, so an
 * interrupted run still leaves what it measured.
 */
public final class ScaleRun {

    /** The count budget of one search: far above what its time budget allows, so time is the binding limit. */
    private static final long SEARCH_COUNT_BUDGET = 10_000_000;
    private static final Duration WARMUP_DRAIN = Duration.ofSeconds(2);
    /** Warm-up rounds, each at twice the rate of the one before, the last at the start rate. */
    private static final int WARMUP_ROUNDS = 4;
    /** Most settling rounds after the warm-up: with 4 nodes, 4 s each, a bit over a minute. */
    private static final int MAX_SETTLE_ROUNDS = 20;

    private final ScaleSettings settings;
    private final PrintWriter log;
    private final AtomicReference<ClusterProcess> current = new AtomicReference<>();

    private ScaleRun(ScaleSettings settings, PrintWriter log) {
        this.settings = settings;
        this.log = log;
    }

    /**
     * Runs the whole benchmark and writes {@code results.csv},
     * {@code results.json}, {@code results.md} and the charts into
     * {@code settings.out()}. Progress lines go to {@code log}.
     */
    public static ScaleResults run(ScaleSettings settings, PrintWriter log) throws IOException {
        return new ScaleRun(settings, log).run();
    }

    private ScaleResults run() throws IOException {
        Files.createDirectories(settings.out());
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        List<ScaleCell> cells = new ArrayList<>();
        // Ctrl-C or SIGTERM while a cluster runs must not leave its node JVMs behind.
        Thread hook = new Thread(() -> {
            ClusterProcess c = current.get();
            if (c != null) {
                c.close();
            }
        }, "p2psip-scale-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            for (String auth : settings.auths()) {
                for (String policy : settings.policies()) {
                    for (String dht : settings.dhts()) {
                        for (int nodes : settings.nodeCounts()) {
                            cells.addAll(cluster(dht, auth, policy, nodes));
                            write(results(started, t0, cells));
                        }
                    }
                }
            }
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // Already shutting down: the hook runs and finds nothing left to stop.
            }
        }
        ScaleResults results = results(started, t0, cells);
        write(results);
        List<Path> charts = ScaleCharts.write(results, settings.out());
        say("wrote %s (results.csv, results.json, results.md, %d charts)", settings.out(), charts.size());
        return results;
    }

    private ScaleResults results(Instant started, long t0, List<ScaleCell> cells) {
        return new ScaleResults(started, (System.nanoTime() - t0) / 1e9, Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"), settings, cells);
    }

    private void write(ScaleResults r) throws IOException {
        Path out = settings.out();
        Files.writeString(out.resolve("results.csv"), ResultsCsv.render(r), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("results.json"), ResultsJson.render(r), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("results.md"), ResultsTable.render(r), StandardCharsets.UTF_8);
    }

    /**
     * Every scenario on one cluster of {@code nodes} nodes of {@code dht}
     * running {@code --auth auth}, its balancer under {@code --policy policy}.
     */
    private List<ScaleCell> cluster(String dht, String auth, String policy, int nodes) {
        List<ScaleCell> cells = new ArrayList<>();
        String row = ScaleCell.row(dht, auth, policy);
        if ("local".equals(dht) && nodes > 1) {
            for (Scenario s : settings.scenarios()) {
                cells.add(ScaleCell.skipped(dht, auth, policy, nodes, s.label(),
                        "local keeps registrations inside one node: measured with 1 node only"));
            }
            if (nodes == firstMultiNodeCount()) {
                say("%s x%d: skipped (the local backend runs with one node only)", row, nodes);
            }
            return cells;
        }
        boolean authRequired = ScaleCell.AUTH_REQUIRED.equals(auth);
        say("%s x%d: starting the cluster", row, nodes);
        ClusterProcess cluster = null;
        String startNote = "";
        // Two tries: on a busy machine a member can miss its start timeout, or a port checked free be taken.
        for (int attempt = 1; cluster == null; attempt++) {
            try {
                cluster = ClusterProcess.start(dht, nodes, settings.replicas(), authRequired, policy,
                        settings.clusterStart(), settings.out().resolve("cluster-" + dht + "-" + auth + "-" + policy
                                + "-" + nodes
                                + (attempt > 1 ? "-" + attempt : "") + ".log"));
            } catch (ClusterProcess.ClusterStartException e) {
                say("%s x%d: %s", row, nodes, e.getMessage());
                if (attempt >= 2) {
                    for (Scenario s : settings.scenarios()) {
                        cells.add(ScaleCell.failed(dht, auth, policy, nodes, s.label(), e.getMessage(), loadAverage()));
                    }
                    return cells;
                }
                startNote = "first cluster start failed (" + e.getMessage() + "), second succeeded";
            }
        }
        current.set(cluster);
        try {
            BenchAuth benchAuth = BenchAuth.NONE;
            if (authRequired) {
                BenchAuth provisioning = BenchAuth.digest(settings.users(), BenchAuth.DEFAULT_PASSWORD,
                        cluster.admins(), cluster.secret());
                // Once per cluster: every scenario measured on it uses the same users.
                benchAuth = provisioning.provisioned();
                long p0 = System.nanoTime();
                try {
                    BenchUsers.provision(provisioning, cluster.balancer().toString(), callees());
                } catch (RuntimeException e) {
                    for (Scenario s : settings.scenarios()) {
                        cells.add(ScaleCell.failed(dht, auth, policy, nodes, s.label(), e.getMessage(), loadAverage()));
                    }
                    return cells;
                }
                say("%s x%d: provisioned %,d users in %.1f s", row, nodes, settings.users() + callees(),
                        (System.nanoTime() - p0) / 1e9);
            }
            boolean fresh = true;
            for (Scenario s : settings.scenarios()) {
                ScaleCell cell = measure(dht, auth, policy, nodes, s, cluster, benchAuth, startNote, fresh ? nodes : 1);
                fresh = false;
                if (s == Scenario.REGISTER && settings.crossCheckSipp() && cell.measured() && !authRequired) {
                    say("%s x%d %s: SIPp cross-check at %.0f/s", row, nodes, s.label(), cell.maxRate());
                    cell = cell.withSipp(SippCrossCheck.run(cluster.balancer(), cell.maxRate(), cell.achievedRate(),
                            settings.out().resolve("sipp-" + dht + "-" + policy + "-" + nodes)));
                    say("%s x%d %s: %s", row, nodes, s.label(), ResultsTable.sippText(cell.sipp().orElseThrow()));
                }
                cells.add(cell);
            }
        } finally {
            cluster.close();
            current.set(null);
        }
        return cells;
    }

    /** The built-in UAS's users, when some scenario has the UAS. */
    private int callees() {
        return settings.scenarios().stream().anyMatch(Scenario::needsUas) ? settings.aors() : 0;
    }

    private int firstMultiNodeCount() {
        return settings.nodeCounts().stream().filter(n -> n > 1).findFirst().orElse(0);
    }

    /**
     * @param warmupShare how many times {@code --warmup} to warm up for: the
     *                    node count on a fresh cluster, where the balancer
     *                    spreads the warm-up over that many cold JVMs and
     *                    each must get as much as a single node would; 1 once
     *                    an earlier scenario has warmed the cluster
     */
    private ScaleCell measure(String dht, String auth, String policy, int nodes, Scenario scenario,
                              ClusterProcess cluster, BenchAuth benchAuth, String startNote, int warmupShare) {
        double load = loadAverage();
        HostPort target = cluster.balancer();
        String row = ScaleCell.row(dht, auth, policy);
        LoadSpec base = LoadSpec.of(scenario, target).withThreads(settings.threads()).withAors(settings.aors())
                .withCount(SEARCH_COUNT_BUDGET).withDuration(settings.searchBudget()).withAuth(benchAuth);
        RateSearchSpec search = new RateSearchSpec(settings.startRate(), settings.growth(), settings.precision(),
                settings.maxSteps(), settings.stepDuration(),
                new MaxRateSearch.Criteria(MaxRateSearch.Criteria.DEFAULT.minSuccess(), settings.p99BoundMillis(),
                        minAchievedShare(settings.stepDuration(), settings.p99BoundMillis())));
        String note = startNote;
        try (LoadRun run = LoadRun.open(base)) {
            if (!settings.warmup().isZero()) {
                note = join(note, warmUp(run, base, settings.warmup().multipliedBy(warmupShare)));
                note = join(note, settle(run, base, cluster, settings.warmup().multipliedBy(warmupShare)));
            }
            if (!cluster.isAlive()) {
                return ScaleCell.failed(dht, auth, policy, nodes, scenario.label(),
                        "the cluster exited: " + cluster.lastWords(), load);
            }
            StepMeter<DhtLatencyHistogram, DhtOperations> dhtMeter =
                    StepMeter.dhtOperations(new NodeMetricsScrape(cluster.metrics()));
            StepMeter<CpuCost.Sample, CpuCost> cpuMeter = StepMeter.cpu(cluster::cpu);
            MaxRateReport m = run.searchMaxRate(base, search, Progress.NONE, StepListener.all(dhtMeter, cpuMeter));
            say("%s x%d %s: %s", row, nodes, scenario.label(), m.summary());
            LoadReport best = m.best();
            if (best == null) {
                String path = m.steps().stream().map(s -> String.format(Locale.ROOT, "%.0f/s: %.2f%% ok, p99 %.0f ms",
                        s.report().offeredRate(), 100 * s.report().successRatio(), s.report().p99Millis()))
                        .reduce((a, b) -> a + "; " + b).orElse("no step ran");
                return new ScaleCell(dht, auth, policy, nodes, scenario.label(), ScaleCell.Status.OK,
                        join(note, "no step held (" + path + ")"), 0, 0, 0, 0, 0, 0, m.steps().size(), m.stoppedBy(),
                        load, Optional.empty(), 0, Optional.empty(), Optional.empty());
            }
            String limit = limitNote(m);
            if (!limit.isEmpty()) {
                note = join(note, limit);
            }
            int bestStep = 0;
            for (int i = 0; i < m.steps().size(); i++) {
                if (m.steps().get(i).report() == best) {
                    bestStep = i;
                }
            }
            Optional<DhtOperations> dhtOps = dhtMeter.of(bestStep);
            return new ScaleCell(dht, auth, policy, nodes, scenario.label(), ScaleCell.Status.OK, note, m.bestRate(),
                    best.achievedRate(), best.successRatio(), best.p50Millis(), best.p90Millis(), best.p99Millis(),
                    m.steps().size(), m.stoppedBy(), load, Optional.empty(), best.failed(), dhtOps,
                    cpuMeter.of(bestStep));
        } catch (RuntimeException e) {
            String why = e.getMessage() == null ? e.toString() : e.getMessage();
            say("%s x%d %s: failed: %s", row, nodes, scenario.label(), why);
            return ScaleCell.failed(dht, auth, policy, nodes, scenario.label(), join(note, why), load);
        }
    }

    /**
     * Unmeasured rounds that double up to the start rate, each a quarter of
     * {@code warmup}: an eighth, a quarter, a half, then the start rate
     * itself. A cold node (JIT not yet run, Hazelcast partitions still
     * settling) should be warmed, not swamped — a fresh four-node kademlia
     * cluster given half the start rate at once fell behind, and every
     * REGISTER of the warm-up and of the search's first steps failed — and
     * the search's first step should not be the first time the cluster sees
     * that pace. Returns a note on failures, empty when there were none.
     */
    /**
     * After the warm-up, rounds at half the start rate, each as long as a
     * warm-up round, until the nodes' CPU per request stops falling
     * ({@link WarmupSettling}): the search should measure compiled code, and
     * every node of a larger cluster takes its share of the requests to get
     * there. Skipped when the processes' CPU cannot be read. Returns a note
     * with the rounds run and their costs.
     */
    private String settle(LoadRun run, LoadSpec base, ClusterProcess cluster, Duration warmup) {
        Duration round = warmup.dividedBy(WARMUP_ROUNDS);
        if (round.isZero() || cluster.cpu().isEmpty()) {
            return "";
        }
        double rate = Math.max(1, settings.startRate() / 2);
        long count = Math.max(1, Math.round(rate * round.toMillis() / 1000.0));
        WarmupSettling settling = new WarmupSettling(MAX_SETTLE_ROUNDS);
        long failed = 0;
        do {
            Optional<CpuCost.Sample> before = cluster.cpu();
            LoadReport w = run.measure(base.withRate(rate).withCount(count)
                    .withDuration(round.plusSeconds(1)).withDrain(WARMUP_DRAIN), Progress.NONE);
            Optional<CpuCost.Sample> after = cluster.cpu();
            failed += w.failed();
            Optional<CpuCost> cost = before.isEmpty() || after.isEmpty() ? Optional.empty()
                    : CpuCost.between(before.get(), after.get(), w.attempted());
            if (cost.isEmpty()) {
                break;
            }
            settling.round(cost.get().nodesMillis());
        } while (!settling.settled());
        return String.format(Locale.ROOT, "settled at %.0f/s in %d rounds, node CPU ms per 1,000: %s%s", rate,
                settling.costs().size(), settling.costs().stream().map(c -> String.format(Locale.ROOT, "%.0f", c))
                        .reduce((a, b) -> a + ", " + b).orElse("none"),
                failed > 0 ? " (" + failed + " failed)" : "");
    }

    private String warmUp(LoadRun run, LoadSpec base, Duration warmup) {
        List<String> notes = new ArrayList<>();
        Duration round = warmup.dividedBy(WARMUP_ROUNDS);
        for (int i = WARMUP_ROUNDS - 1; i >= 0; i--) {
            double rate = Math.max(1, settings.startRate() / (1 << i));
            long count = Math.max(1, Math.round(rate * round.toMillis() / 1000.0));
            LoadReport w = run.measure(base.withRate(rate).withCount(count)
                    .withDuration(round.plusSeconds(1)).withDrain(WARMUP_DRAIN), Progress.NONE);
            if (w.failed() > 0) {
                // Worth knowing (a cold cluster dropping requests), but the search is what counts.
                notes.add(String.format(Locale.ROOT, "warm-up at %.0f/s: %d of %d failed %s", rate, w.failed(),
                        w.attempted(), w.failures()));
            }
        }
        return String.join("; ", notes);
    }

    /**
     * The share of the offered rate a step must achieve. The achieved rate
     * is measured from the first send to the last answer, so the answers'
     * tail lengthens a short step's window: a 2 s step whose last answers
     * take 200 ms (within the p99 bound) shows 91 % of its offered rate
     * with nothing wrong. The default 95 % is scaled by that allowance, so
     * a short step fails for falling behind, not for being short.
     */
    static double minAchievedShare(Duration step, double p99BoundMillis) {
        double seconds = step.toMillis() / 1000.0;
        return MaxRateSearch.Criteria.DEFAULT.minAchievedShare() * seconds / (seconds + p99BoundMillis / 1000.0);
    }

    /** The failed step nearest above the max rate, and why it failed: what the limit looked like. */
    static String limitNote(MaxRateReport m) {
        return m.steps().stream().filter(s -> !s.held())
                .filter(s -> s.report().offeredRate() > m.bestRate())
                .min(java.util.Comparator.comparingDouble(s -> s.report().offeredRate()))
                .map(s -> String.format(Locale.ROOT, "at %.0f/s: %.2f%% ok, p99 %.0f ms, %.0f/s achieved%s",
                        s.report().offeredRate(), 100 * s.report().successRatio(), s.report().p99Millis(),
                        s.report().achievedRate(), s.report().failures().isEmpty() ? ""
                                : ", failures " + new java.util.TreeMap<>(s.report().failures())))
                .orElse("");
    }

    private static String join(String a, String b) {
        return a.isEmpty() ? b : b.isEmpty() ? a : a + "; " + b;
    }

    /** The one-minute load average, or -1 where the OS does not say. */
    static double loadAverage() {
        double l = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return l < 0 ? -1 : l;
    }

    private void say(String format, Object... args) {
        log.println("p2psip scale: " + String.format(Locale.ROOT, format, args));
        log.flush();
    }
}
