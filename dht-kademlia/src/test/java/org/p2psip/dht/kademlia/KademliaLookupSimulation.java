package org.p2psip.dht.kademlia;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Benchmark, not a test: a deterministic, seeded simulation of large
 * Kademlia overlays over the in-memory {@link SimulatedOverlay}, with the
 * real {@link RoutingTable} and {@link NodeLookup}. It measures lookup
 * rounds (the paper predicts about log2(N)/b with b = 1 here, far fewer in
 * practice because of k-wide buckets) and success — finding the true
 * closest live node — on a stable overlay and under churn: every round
 * {@code churn}% of the nodes crash without a word and as many join (§2.3
 * join: own-id lookup plus refreshes), and lookups run right away, against
 * routing tables that still list the dead.
 *
 * <pre>
 * java -cp core.jar:dht-kademlia.jar org.p2psip.dht.kademlia.KademliaLookupSimulation [N,...] [seed]
 *      [k] [churn-percent-per-round] [rounds]
 * </pre>
 */
public final class KademliaLookupSimulation {

    private static final int ALPHA = 3;

    private KademliaLookupSimulation() {
    }

    /** What one run measured. */
    public record Result(int nodes, double stableRounds, double stableSuccess, double churnRounds,
                         int churnMaxRounds, double churnSuccess, double churnQueries, long churnLookups,
                         long millis) {
    }

    public static void main(String[] args) {
        String[] sizes = (args.length > 0 ? args[0] : "1000,10000").split(",");
        long seed = args.length > 1 ? Long.parseLong(args[1]) : 42;
        int k = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        double churnPercent = args.length > 3 ? Double.parseDouble(args[3]) : 5.0;
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 10;
        System.out.printf(Locale.ROOT, "seed %d, k %d, alpha %d, churn %.1f%% of nodes crash and as many join per"
                + " round, %d rounds%n", seed, k, ALPHA, churnPercent, rounds);
        System.out.printf(Locale.ROOT, "%8s %9s %13s %10s %13s %11s %10s %14s %9s%n", "nodes", "log2 N",
                "stable rounds", "stable ok", "churn rounds", "churn max", "churn ok", "churn msgs/lkp", "seconds");
        for (String s : sizes) {
            Result r = run(Integer.parseInt(s.trim()), seed, k, churnPercent, rounds);
            System.out.printf(Locale.ROOT, "%8d %9.2f %13.2f %9.2f%% %13.2f %11d %9.2f%% %14.1f %9.1f%n",
                    r.nodes(), Math.log(r.nodes()) / Math.log(2), r.stableRounds(), 100 * r.stableSuccess(),
                    r.churnRounds(), r.churnMaxRounds(), 100 * r.churnSuccess(), r.churnQueries(),
                    r.millis() / 1000.0);
        }
    }

    public static Result run(int n, long seed, int k, double churnPercent, int rounds) {
        long t0 = System.currentTimeMillis();
        SimulatedOverlay overlay = new SimulatedOverlay(IdSpace.SHA1, k, ALPHA, seed);
        overlay.populate(n);
        long[] stable = lookups(overlay, 2_000);
        int perRound = Math.max(1, (int) Math.round(n * churnPercent / 100));
        long[] churn = new long[5];
        for (int round = 0; round < rounds; round++) {
            overlay.advance(60_000);
            List<BigInteger> victims = new ArrayList<>();
            for (int i = 0; i < perRound; i++) {
                BigInteger v;
                do {
                    v = overlay.randomAlive();
                } while (victims.contains(v));
                victims.add(v);
            }
            victims.forEach(overlay::crash);
            for (int i = 0; i < perRound; i++) {
                overlay.join(overlay.freshId(), Optional.of(overlay.randomAlive()));
            }
            long[] r = lookups(overlay, 500);
            for (int j = 0; j < 4; j++) {
                churn[j] += r[j];
            }
            churn[4] = Math.max(churn[4], r[4]);
        }
        return new Result(n, (double) stable[1] / stable[2], (double) stable[0] / stable[2],
                (double) churn[1] / churn[2], (int) churn[4], (double) churn[0] / churn[2],
                (double) churn[3] / churn[2], churn[2], System.currentTimeMillis() - t0);
    }

    /** {successes, rounds, attempts, queries, max rounds}: success is finding the true closest live node. */
    private static long[] lookups(SimulatedOverlay overlay, int count) {
        long ok = 0;
        long rounds = 0;
        long queries = 0;
        long max = 0;
        for (int i = 0; i < count; i++) {
            BigInteger from = overlay.randomAlive();
            BigInteger key = IdSpace.SHA1.random(overlay.random());
            SimulatedOverlay.Outcome o = overlay.lookup(from, key);
            if (o.foundClosest()) {
                ok++;
            }
            rounds += o.rounds();
            queries += o.queries();
            max = Math.max(max, o.rounds());
        }
        return new long[] {ok, rounds, count, queries, max};
    }
}
