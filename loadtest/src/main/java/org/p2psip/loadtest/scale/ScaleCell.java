package org.p2psip.loadtest.scale;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One cell of the scale table: what the max-rate search found for one
 * backend, node count and scenario.
 *
 * @param dht          backend name
 * @param auth         the nodes' {@code --auth}: {@code required} (digest, the default) or {@code none}
 * @param policy       the balancer's {@code --policy}: {@code owner} (the default), {@code call-id}, ...
 * @param nodes        node processes behind the balancer
 * @param scenario     scenario label ("register", "call")
 * @param status       {@link Status#OK}, {@link Status#SKIPPED} or {@link Status#FAILED}
 * @param note         why a cell was skipped or failed, or what else is worth knowing; empty when nothing
 * @param maxRate      highest offered rate that held, per second; 0 when none did
 * @param achievedRate what that step achieved, per second
 * @param successRatio share of that step's flows that succeeded
 * @param p50Millis    median latency at the max rate
 * @param p90Millis    90th percentile at the max rate
 * @param p99Millis    99th percentile at the max rate
 * @param steps        search steps run
 * @param stoppedBy    why the search ended ("converged", "max-steps", "count", "duration"), or empty
 * @param loadAverage  the machine's one-minute load average just before the cell, or -1 when unknown:
 *                     a shared machine's noise, written next to the figure it disturbs
 * @param sipp         the SIPp cross-check, when one ran
 * @param failed       requests that failed in the step at the max rate (the search lets 0.1 % fail)
 * @param dhtOperations the nodes' DHT operations in that step, when their {@code --metrics} could be read
 * @param cpu          what that step cost in CPU, when the processes' times could be read
 */
public record ScaleCell(String dht, String auth, String policy, int nodes, String scenario, Status status,
                        String note, double maxRate, double achievedRate, double successRatio, double p50Millis, double p90Millis,
                        double p99Millis, int steps, String stoppedBy, double loadAverage,
                        Optional<SippCheck> sipp, long failed, Optional<DhtOperations> dhtOperations,
                        Optional<CpuCost> cpu) {

    /** How a cell ended. */
    public enum Status {
        /** The search ran; {@code maxRate} is its answer (0 when no step held). */
        OK,
        /** Not run, by design (e.g. {@code local} with more than one node). */
        SKIPPED,
        /** The cluster or the run failed; {@code note} says how. */
        FAILED;

        /** Lower-case label for the files. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public ScaleCell {
        Objects.requireNonNull(dht, "dht");
        Objects.requireNonNull(auth, "auth");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(status, "status");
        note = note == null ? "" : note;
        stoppedBy = stoppedBy == null ? "" : stoppedBy;
        sipp = sipp == null ? Optional.empty() : sipp;
        dhtOperations = dhtOperations == null ? Optional.empty() : dhtOperations;
        cpu = cpu == null ? Optional.empty() : cpu;
        if (failed < 0) {
            throw new IllegalArgumentException("failed " + failed);
        }
    }

    /** The nodes' {@code --auth} values, as the rows and files name them. */
    public static final String AUTH_REQUIRED = "required";
    public static final String AUTH_NONE = "none";

    /** The balancer's default policy: each request to the node that owns its AOR. */
    public static final String POLICY_OWNER = "owner";

    /**
     * The table row this cell belongs to: the backend, marked when the nodes
     * ran without authentication or the balancer with another policy than
     * {@value #POLICY_OWNER}.
     */
    public String row() {
        return row(dht, auth, policy);
    }

    /** The row of {@code dht} with the nodes' {@code --auth auth} behind a balancer with {@code --policy policy}. */
    public static String row(String dht, String auth, String policy) {
        List<String> marks = new ArrayList<>();
        if (AUTH_NONE.equals(auth)) {
            marks.add("auth none");
        }
        if (!POLICY_OWNER.equals(policy)) {
            marks.add(policy);
        }
        return marks.isEmpty() ? dht : dht + " (" + String.join(", ", marks) + ")";
    }

    /** A cell not run, and why. */
    public static ScaleCell skipped(String dht, String auth, String policy, int nodes, String scenario, String why) {
        return new ScaleCell(dht, auth, policy, nodes, scenario, Status.SKIPPED, why, 0, 0, 0, 0, 0, 0, 0, "", -1,
                Optional.empty(), 0, Optional.empty(), Optional.empty());
    }

    /** A cell whose cluster or run failed. */
    public static ScaleCell failed(String dht, String auth, String policy, int nodes, String scenario, String why,
                                   double loadAverage) {
        return new ScaleCell(dht, auth, policy, nodes, scenario, Status.FAILED, why, 0, 0, 0, 0, 0, 0, 0, "",
                loadAverage, Optional.empty(), 0, Optional.empty(), Optional.empty());
    }

    /** This cell with a SIPp cross-check attached. */
    public ScaleCell withSipp(SippCheck check) {
        return new ScaleCell(dht, auth, policy, nodes, scenario, status, note, maxRate, achievedRate, successRatio,
                p50Millis, p90Millis, p99Millis, steps, stoppedBy, loadAverage, Optional.of(check), failed, dhtOperations,
                cpu);
    }

    /** Whether the cell has a measured rate to draw. */
    public boolean measured() {
        return status == Status.OK && maxRate > 0;
    }
}
