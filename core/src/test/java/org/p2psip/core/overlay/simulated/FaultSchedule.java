package org.p2psip.core.overlay.simulated;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A fault schedule drawn from one seed: how many nodes form the overlay and
 * how fast, then a sequence of faults — a crash, a join, two nodes adjacent
 * by id stopped together, a node cut off by a partition that heals — each
 * followed by a quiet spell long enough to repair (so no more than
 * {@code replicas - 1} copies of a key are ever out of reach at once, the
 * failure model replication is built for). Message loss applies throughout.
 *
 * @param seed      what the whole run is drawn from; replays it
 * @param nodes     nodes that form the overlay before the faults
 * @param joinGap   time between one node's start and the next's
 * @param keys      keys the writers append to
 * @param writers   concurrent writers, each one operation at a time
 * @param loss      probability that a message is lost
 * @param faults    the faults in order
 */
public record FaultSchedule(long seed, int nodes, Duration joinGap, int keys, int writers, double loss,
                            List<Fault> faults) {

    public FaultSchedule {
        if (nodes < 2 || keys < 1 || writers < 1 || loss < 0 || loss >= 1) {
            throw new IllegalArgumentException("bad schedule: " + nodes + " nodes, " + keys + " keys, " + writers
                    + " writers, loss " + loss);
        }
        faults = List.copyOf(faults);
    }

    /** One fault: what, on which node (an index into the live nodes sorted by id), for how long, then a quiet spell. */
    public record Fault(Kind kind, int pick, Duration span, Duration quiet) {
    }

    public enum Kind {
        /** A node is killed with no goodbye. */
        CRASH,
        /** A new node joins through a live one. */
        JOIN,
        /** A node and its successor by id stop (owner thread and network) for the span, as in a long GC pause. */
        PAUSE_ADJACENT,
        /** A node is cut off from all others for the span, then the partition heals. */
        PARTITION
    }

    /** Draws a schedule: {@code minNodes..maxNodes} nodes and {@code faultCount} faults. */
    public static FaultSchedule draw(long seed, int minNodes, int maxNodes, int faultCount) {
        SplittableRandom r = new SplittableRandom(seed);
        int nodes = r.nextInt(minNodes, maxNodes + 1);
        Duration joinGap = Duration.ofMillis(r.nextLong(100, 1_000));
        List<Fault> faults = new ArrayList<>();
        Kind[] kinds = Kind.values();
        for (int i = 0; i < faultCount; i++) {
            Kind kind = kinds[r.nextInt(kinds.length)];
            Duration span = switch (kind) {
                case CRASH, JOIN -> Duration.ZERO;
                case PAUSE_ADJACENT -> Duration.ofMillis(r.nextLong(500, 6_000));
                case PARTITION -> Duration.ofMillis(r.nextLong(500, 8_000));
            };
            faults.add(new Fault(kind, r.nextInt(1 << 20), span, Duration.ofMillis(r.nextLong(10_000, 20_000))));
        }
        return new FaultSchedule(seed, nodes, joinGap, 16 + r.nextInt(17), 4 + r.nextInt(5), 0.01, faults);
    }
}
