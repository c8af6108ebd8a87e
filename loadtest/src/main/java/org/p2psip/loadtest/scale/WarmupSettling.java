package org.p2psip.loadtest.scale;

import java.util.ArrayList;
import java.util.List;

/**
 * When a cluster has warmed up: the nodes' CPU per request, measured round
 * after round at one rate, has stopped falling.
 *
 * <p>A fresh JVM runs its code interpreted, then compiled once and again
 * when the code proves hot, and every node of a cluster sees only its share
 * of the requests, so a four-node cluster takes about four times as many
 * requests as one node to get there. Until it has, the CPU a request costs
 * falls round by round (four hazelcast nodes on this machine cost 1.9 ms of
 * CPU per REGISTER after a short warm-up and under 0.5 ms a minute later),
 * and a rate search would measure the compiler rather than the cluster.
 * Settled means: {@value #FLAT_ROUNDS} rounds in a row that came within
 * {@value #TOLERANCE_PERCENT} % of the cheapest round so far, or
 * {@link #maxRounds} rounds in all.
 */
final class WarmupSettling {

    static final int FLAT_ROUNDS = 2;
    static final int TOLERANCE_PERCENT = 10;

    private final int maxRounds;
    private final List<Double> costs = new ArrayList<>();
    private double cheapest = Double.POSITIVE_INFINITY;
    private int flat;

    WarmupSettling(int maxRounds) {
        if (maxRounds < 1) {
            throw new IllegalArgumentException("at least one round, not " + maxRounds);
        }
        this.maxRounds = maxRounds;
    }

    /** One more round cost the nodes {@code cpuMillisPerThousand}; returns whether the cluster has settled. */
    boolean round(double cpuMillisPerThousand) {
        if (!(cpuMillisPerThousand >= 0)) {
            throw new IllegalArgumentException("a cost is a non-negative number, not " + cpuMillisPerThousand);
        }
        costs.add(cpuMillisPerThousand);
        if (cpuMillisPerThousand <= cheapest * (1 + TOLERANCE_PERCENT / 100.0)) {
            flat = cpuMillisPerThousand < cheapest * (1 - TOLERANCE_PERCENT / 100.0) ? 0 : flat + 1;
        } else {
            flat = 0;
        }
        cheapest = Math.min(cheapest, cpuMillisPerThousand);
        return settled();
    }

    boolean settled() {
        return flat >= FLAT_ROUNDS || costs.size() >= maxRounds;
    }

    /** The costs seen so far, in order. */
    List<Double> costs() {
        return List.copyOf(costs);
    }
}
