package org.p2psip.loadtest.scale;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.p2psip.core.dht.DhtBackends;
import org.p2psip.loadtest.bench.Scenario;
import org.p2psip.balancer.BalancingPolicy;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code p2psip bench scale}: the scale benchmark from the command line.
 * With no flags it runs {@link ScaleSettings#defaults} into
 * {@code ./scale-results}.
 */
@Command(name = "scale", mixinStandardHelpOptions = true, sortOptions = false,
        description = "For each backend and node count: start a local cluster (nodes behind the balancer), warm up, "
                + "search for the highest sustainable rate of each scenario, tear the cluster down. Writes "
                + "results.csv, results.json, results.md (rows: backend, columns: node counts) and PNG charts.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every cell ran (skipped ones aside)",
            "1:the results could not be written",
            "2:bad flags",
            "3:some cluster or run failed (the files say which)"})
public final class ScaleCommand implements Callable<Integer> {

    static final int SOME_FAILED = 3;
    private static final ScaleSettings DEFAULTS = ScaleSettings.defaults(Path.of("scale-results"));

    @Spec
    CommandSpec spec;

    @Option(names = "--dht", split = ",", paramLabel = "NAME[,NAME...]",
            description = "Backends, in table order. Default: local,hazelcast,chord (those on the class path).")
    List<String> dhts;

    @Option(names = "--nodes", split = ",", paramLabel = "N[,N...]",
            description = "Node counts, in column order (local runs only with 1). Default: 1,2,4.")
    List<Integer> nodes;

    @Option(names = "--scenario", split = ",", paramLabel = "NAME[,NAME...]",
            description = "register, call, reregister, message. Default: register,call.")
    List<String> scenarios;

    @Option(names = "--out", paramLabel = "DIR", description = "Output folder. Default: ${DEFAULT-VALUE}.")
    Path out = DEFAULTS.out();

    @Option(names = "--replicas", paramLabel = "N",
            description = "Copies of each registration (capped at the node count). Default: ${DEFAULT-VALUE}.")
    int replicas = DEFAULTS.replicas();

    @Option(names = "--threads", paramLabel = "N", description = "Generator threads. Default: ${DEFAULT-VALUE}.")
    int threads = DEFAULTS.threads();

    @Option(names = "--warmup", paramLabel = "SECONDS",
            description = "Unmeasured load before each search, in four equal rounds at an eighth, a quarter, half and "
                    + "all of --start-rate (0: none); on a fresh cluster, this much per node. Then rounds as long at half "
                    + "the start rate until the nodes' CPU per request stops falling (compiled code, not the JIT, is "
                    + "measured), at most 20. Default: ${DEFAULT-VALUE}.")
    double warmupSeconds = DEFAULTS.warmup().toMillis() / 1000.0;

    @Option(names = "--start-rate", paramLabel = "N", description = "First rate of each search. Default: ${DEFAULT-VALUE}.")
    double startRate = DEFAULTS.startRate();

    @Option(names = "--growth", paramLabel = "X",
            description = "Rate factor between rising steps. Default: ${DEFAULT-VALUE}.")
    double growth = DEFAULTS.growth();

    @Option(names = "--precision", paramLabel = "X",
            description = "Stop narrowing when held and failed rates are this close (relative). Default: ${DEFAULT-VALUE}.")
    double precision = DEFAULTS.precision();

    @Option(names = "--max-steps", paramLabel = "N", description = "Most steps per search. Default: ${DEFAULT-VALUE}.")
    int maxSteps = DEFAULTS.maxSteps();

    @Option(names = "--step-duration", paramLabel = "SECONDS",
            description = "How long each step sends. Default: ${DEFAULT-VALUE}.")
    double stepSeconds = DEFAULTS.stepDuration().toMillis() / 1000.0;

    @Option(names = "--p99-bound-ms", paramLabel = "MS",
            description = "Highest p99 latency a step may show and hold. Default: ${DEFAULT-VALUE}.")
    double p99Bound = DEFAULTS.p99BoundMillis();

    @Option(names = "--search-budget", paramLabel = "SECONDS",
            description = "Longest time one search may take. Default: ${DEFAULT-VALUE}.")
    double budgetSeconds = DEFAULTS.searchBudget().toMillis() / 1000.0;

    @Option(names = "--aors", paramLabel = "N",
            description = "call: AORs the built-in UAS registers first. Default: ${DEFAULT-VALUE}.")
    int aors = DEFAULTS.aors();

    @Option(names = "--auth", split = ",", paramLabel = "required|none[,...]",
            description = "The nodes' --auth, a row per backend for each: required (the generator provisions "
                    + "--users users through the nodes' admin endpoints and answers their digest challenges, SHA-256 "
                    + "first) and none. Default: required,none.")
    List<String> auths;

    @Option(names = "--policy", split = ",", paramLabel = "POLICY[,...]",
            description = "The balancer's --policy, a row per backend for each: owner (each request to the node that "
                    + "owns its AOR), call-id, aor or round-robin. Default: owner.")
    List<String> policies;

    @Option(names = "--users", paramLabel = "N",
            description = "With --auth required: bench users provisioned on each cluster; flows cycle through them. "
                    + "Default: ${DEFAULT-VALUE}.")
    int users = DEFAULTS.users();

    @Option(names = "--cross-check-sipp",
            description = "After each register search, run SIPp against the same balancer at the rate found and "
                    + "report whether the two generators' achieved rates agree within 10 %%.")
    boolean crossCheckSipp;

    /** The command, ready to add under {@code bench}. */
    public static CommandLine commandLine() {
        return new CommandLine(new ScaleCommand());
    }

    @Override
    public Integer call() {
        ScaleSettings settings = settings();
        PrintWriter log = spec.commandLine().getErr();
        ScaleResults results;
        try {
            results = ScaleRun.run(settings, log);
        } catch (IOException e) {
            log.println("p2psip bench scale: cannot write the results to " + settings.out() + ": " + e.getMessage());
            log.flush();
            return 1;
        }
        PrintWriter stdout = spec.commandLine().getOut();
        stdout.print(ResultsTable.render(results));
        stdout.flush();
        return results.cells().stream().anyMatch(c -> c.status() == ScaleCell.Status.FAILED) ? SOME_FAILED : 0;
    }

    ScaleSettings settings() {
        List<String> available = DhtBackends.names();
        List<String> backends = new ArrayList<>();
        if (dhts == null) {
            DEFAULTS.dhts().stream().filter(available::contains).forEach(backends::add);
        } else {
            for (String d : dhts) {
                String name = d.strip().toLowerCase(Locale.ROOT);
                require(available.contains(name), "unknown DHT backend '" + d + "' (available: "
                        + String.join(", ", available) + ")");
                if (!backends.contains(name)) {
                    backends.add(name);
                }
            }
        }
        require(!backends.isEmpty(), "no backend to run");
        List<Integer> counts = nodes == null ? DEFAULTS.nodeCounts() : nodes.stream().distinct().sorted().toList();
        require(counts.stream().allMatch(n -> n >= 1 && n <= 16), "--nodes must be between 1 and 16");
        List<Scenario> chosen = new ArrayList<>();
        if (scenarios == null) {
            chosen.addAll(DEFAULTS.scenarios());
        } else {
            for (String s : scenarios) {
                Scenario sc = switch (s.strip().toLowerCase(Locale.ROOT)) {
                    case "register" -> Scenario.REGISTER;
                    case "reregister" -> Scenario.REREGISTER;
                    case "call" -> Scenario.CALL;
                    case "message" -> Scenario.MESSAGE;
                    default -> throw new ParameterException(spec.commandLine(), "unknown scenario '" + s
                            + "' (register, call, reregister, message)");
                };
                if (!chosen.contains(sc)) {
                    chosen.add(sc);
                }
            }
        }
        require(replicas >= 1, "--replicas must be at least 1");
        require(threads >= 1 && threads <= 64, "--threads must be between 1 and 64");
        require(warmupSeconds >= 0, "--warmup must not be negative");
        require(startRate >= 1, "--start-rate must be at least 1");
        require(growth > 1, "--growth must be more than 1");
        require(precision > 0 && precision < 1, "--precision must be between 0 and 1");
        require(maxSteps >= 1 && maxSteps <= 100, "--max-steps must be between 1 and 100");
        require(stepSeconds >= 0.1, "--step-duration must be at least 0.1 s");
        require(p99Bound > 0, "--p99-bound-ms must be more than 0");
        require(budgetSeconds >= stepSeconds, "--search-budget must be at least one step");
        require(aors >= 1, "--aors must be at least 1");
        require(users >= 1, "--users must be at least 1");
        List<String> modes = new ArrayList<>();
        for (String a : auths == null ? DEFAULTS.auths() : auths) {
            String m = a.strip().toLowerCase(Locale.ROOT);
            require(m.equals(ScaleCell.AUTH_REQUIRED) || m.equals(ScaleCell.AUTH_NONE),
                    "unknown --auth '" + a + "' (required, none)");
            if (!modes.contains(m)) {
                modes.add(m);
            }
        }
        List<String> balancing = new ArrayList<>();
        for (String p : policies == null ? DEFAULTS.policies() : policies) {
            String name;
            try {
                name = BalancingPolicy.parse(p).flag();
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--policy: " + e.getMessage());
            }
            if (!balancing.contains(name)) {
                balancing.add(name);
            }
        }
        return new ScaleSettings(backends, counts, chosen, out, replicas, threads, seconds(warmupSeconds), startRate,
                growth, precision, maxSteps, seconds(stepSeconds), p99Bound, seconds(budgetSeconds), aors,
                DEFAULTS.clusterStart(), crossCheckSipp, modes, balancing, users);
    }

    private static Duration seconds(double s) {
        return Duration.ofMillis(Math.round(s * 1000));
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}
