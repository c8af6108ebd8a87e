package org.p2psip.loadtest.scale;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

import org.p2psip.loadtest.bench.BenchAuth;
import org.p2psip.loadtest.bench.Scenario;

/**
 * What one scale benchmark runs: every backend at every node count, every
 * scenario on each cluster, and how hard each max-rate search may try.
 *
 * @param dhts          backends, in table order
 * @param nodeCounts    node counts, in column order
 * @param scenarios     scenarios, one table each
 * @param out           where results go
 * @param replicas      copies of each registration the cluster keeps
 * @param threads       generator lanes
 * @param warmup        unmeasured load before each search, in rounds doubling up to the start rate, so the nodes' JIT has run
 * @param startRate     first rate of each search
 * @param growth        factor between rising steps
 * @param precision     relative gap at which the search stops narrowing
 * @param maxSteps      most steps per search
 * @param stepDuration  how long each step sends
 * @param p99BoundMillis highest p99 latency a step may show and hold
 * @param searchBudget  longest time one search may take (steps, drains and pauses)
 * @param aors          AORs the built-in UAS registers for the call scenario
 * @param clusterStart  longest wait for a cluster's "ready" line
 * @param crossCheckSipp whether to run SIPp at the found register rate
 * @param auths         the nodes' {@code --auth} values to measure, each a row per backend:
 *                      {@code required} (the generator provisions users and authenticates with digest) and {@code none}
 * @param policies      the balancer's {@code --policy} values to measure, each a row per backend and auth mode
 * @param users         with authentication, the bench users provisioned on each cluster
 */
public record ScaleSettings(List<String> dhts, List<Integer> nodeCounts, List<Scenario> scenarios, Path out,
                            int replicas, int threads, Duration warmup, double startRate, double growth,
                            double precision, int maxSteps, Duration stepDuration, double p99BoundMillis,
                            Duration searchBudget, int aors, Duration clusterStart, boolean crossCheckSipp,
                            List<String> auths, List<String> policies, int users) {

    public ScaleSettings {
        dhts = List.copyOf(dhts);
        nodeCounts = List.copyOf(nodeCounts);
        scenarios = List.copyOf(scenarios);
        auths = List.copyOf(auths);
        policies = List.copyOf(policies);
        Objects.requireNonNull(out, "out");
        if (dhts.isEmpty() || nodeCounts.isEmpty() || scenarios.isEmpty() || auths.isEmpty() || policies.isEmpty()) {
            throw new IllegalArgumentException("at least one backend, node count, scenario, auth mode and policy");
        }
        if (auths.stream().anyMatch(a -> !ScaleCell.AUTH_REQUIRED.equals(a) && !ScaleCell.AUTH_NONE.equals(a))) {
            throw new IllegalArgumentException("auth modes are required and none");
        }
        if (users < 1) {
            throw new IllegalArgumentException("users must be at least 1");
        }
        if (nodeCounts.stream().anyMatch(n -> n < 1 || n > 64)) {
            throw new IllegalArgumentException("node counts must be between 1 and 64");
        }
    }

    /**
     * The defaults: every backend the scale table knows at 1, 2 and 4 nodes,
     * register and call, short steps, with digest authentication and
     * without — about twenty minutes on a 2-core machine.
     */
    public static ScaleSettings defaults(Path out) {
        return new ScaleSettings(List.of("local", "hazelcast", "chord", "kademlia"), List.of(1, 2, 4),
                List.of(Scenario.REGISTER, Scenario.CALL), out, 1,
                Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors())), Duration.ofSeconds(4), 1000,
                1.6, 0.10, 11, Duration.ofSeconds(2), 200, Duration.ofSeconds(30), 500, Duration.ofSeconds(120),
                false, List.of(ScaleCell.AUTH_REQUIRED, ScaleCell.AUTH_NONE), List.of(ScaleCell.POLICY_OWNER),
                BenchAuth.DEFAULT_USERS);
    }
}
