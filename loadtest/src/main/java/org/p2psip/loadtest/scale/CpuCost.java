package org.p2psip.loadtest.scale;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What one search step cost in CPU: the time the node JVMs (together), the
 * balancer and the load generator each spent on the processors, per 1,000
 * flows the step sent (REGISTERs, or call attempts). The operating system keeps the times (Linux:
 * {@code utime + stime} in {@code /proc/PID/stat}, which the JDK's
 * {@link ProcessHandle.Info#totalCpuDuration} reads).
 *
 * <p>On one machine every process shares its cores, so a measured rate
 * says what that machine does, not what N hosts would. The node figure
 * answers the second question as a projection ({@link #projectedRate}).
 *
 * @param nodesMillis     all node processes, CPU milliseconds per 1,000 requests
 * @param balancerMillis  the balancer, likewise
 * @param generatorMillis the load generator, likewise
 */
public record CpuCost(double nodesMillis, double balancerMillis, double generatorMillis) {

    /** CPU time used so far by each part, read at one moment. */
    public record Sample(Duration nodes, Duration balancer, Duration generator) {

        public Sample {
            Objects.requireNonNull(nodes, "nodes");
            Objects.requireNonNull(balancer, "balancer");
            Objects.requireNonNull(generator, "generator");
        }
    }

    public CpuCost {
        if (!(nodesMillis >= 0 && balancerMillis >= 0 && generatorMillis >= 0)) {
            throw new IllegalArgumentException("CPU per 1,000 requests must not be negative: nodes " + nodesMillis
                    + ", balancer " + balancerMillis + ", generator " + generatorMillis);
        }
    }

    /**
     * The cost of {@code requests} requests sent between two samples; empty
     * when no request was sent or a time went backwards (a node exited, and
     * its time left the sum, between the two).
     */
    public static Optional<CpuCost> between(Sample before, Sample after, long requests) {
        Duration nodes = after.nodes().minus(before.nodes());
        Duration balancer = after.balancer().minus(before.balancer());
        Duration generator = after.generator().minus(before.generator());
        if (requests <= 0 || nodes.isNegative() || balancer.isNegative() || generator.isNegative()) {
            return Optional.empty();
        }
        double per1000 = 1000.0 / requests;
        return Optional.of(new CpuCost(millis(nodes) * per1000, millis(balancer) * per1000,
                millis(generator) * per1000));
    }

    /**
     * A projection, not a measurement: the requests per second {@code nodes}
     * nodes could carry with one node per dedicated host of {@code cores}
     * processors, if each request cost the nodes what it cost here and every
     * host's processors were busy with nothing else (the balancer, the
     * generator and the network keeping up). 0 when the nodes used no CPU.
     */
    public double projectedRate(int nodes, int cores) {
        if (nodes < 1 || cores < 1) {
            throw new IllegalArgumentException("nodes " + nodes + ", cores " + cores);
        }
        return nodesMillis == 0 ? 0 : nodes * cores * 1_000_000.0 / nodesMillis;
    }

    private static double millis(Duration d) {
        return d.toNanos() / 1e6;
    }
}
