package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;

import org.p2psip.core.net.HostPort;

/**
 * Benchmark, not a test: a deterministic, seeded simulation of large Chord
 * rings over the in-memory {@link SimulatedNetwork}, measuring the average
 * lookup path length (Chord's analysis predicts about ½·log2 N) on a stable
 * ring and lookup success under churn (crashes and joins every round, with
 * one stabilize, check-predecessor and fix-finger per node per round).
 *
 * <pre>
 * java -cp core.jar:dht-chord.jar org.p2psip.dht.chord.ChordLookupSimulation [N,...] [seed]
 *      [successors] [churn-percent-per-round] [rounds]
 * </pre>
 */
public final class ChordLookupSimulation {

    private ChordLookupSimulation() {
    }

    /** What one run measured. */
    public record Result(int nodes, double stableHops, double stableSuccess, double churnHops,
                         double churnSuccess, long churnLookups, long messages, long millis) {
    }

    public static void main(String[] args) {
        String[] sizes = (args.length > 0 ? args[0] : "1000,10000").split(",");
        long seed = args.length > 1 ? Long.parseLong(args[1]) : 42;
        int successors = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        double churnPercent = args.length > 3 ? Double.parseDouble(args[3]) : 1.0;
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 20;
        System.out.printf(Locale.ROOT, "seed %d, successor list %d, churn %.1f%% of nodes crash and as many join"
                + " per round, %d rounds%n", seed, successors, churnPercent, rounds);
        System.out.printf(Locale.ROOT, "%8s %10s %12s %12s %12s %12s %12s%n", "nodes", "½·log2 N", "stable hops",
                "stable ok", "churn hops", "churn ok", "seconds");
        for (String s : sizes) {
            Result r = run(Integer.parseInt(s.trim()), seed, successors, churnPercent, rounds);
            System.out.printf(Locale.ROOT, "%8d %10.2f %12.2f %11.2f%% %12.2f %11.2f%% %12.1f%n", r.nodes(),
                    Math.log(r.nodes()) / Math.log(2) / 2, r.stableHops(), 100 * r.stableSuccess(), r.churnHops(),
                    100 * r.churnSuccess(), r.millis() / 1000.0);
        }
    }

    public static Result run(int n, long seed, int successors, double churnPercent, int rounds) {
        long t0 = System.currentTimeMillis();
        Random random = new Random(seed);
        SimulatedNetwork net = new SimulatedNetwork(IdSpace.SHA1, successors);
        int next = 0;
        for (; next < n; next++) {
            HostPort a = SimulatedNetwork.address(next);
            net.add(IdSpace.SHA1.idOf(a.toString()), a);
        }
        net.formIdealRing();

        int[] stable = lookups(net, random, 20_000);
        int perRound = Math.max(1, (int) Math.round(n * churnPercent / 100));
        long churnHops = 0;
        long churnOk = 0;
        long churnLookups = 0;
        for (int round = 0; round < rounds; round++) {
            List<RingMaintenance> live = new ArrayList<>(net.live());
            for (int i = 0; i < perRound; i++) {
                net.crash(live.remove(random.nextInt(live.size())).state().self().overlay());
            }
            for (int i = 0; i < perRound; i++, next++) {
                HostPort a = SimulatedNetwork.address(next);
                RingMaintenance joiner = net.add(IdSpace.SHA1.idOf(a.toString()), a);
                RingMaintenance via = live.get(random.nextInt(live.size()));
                try {
                    joiner.join(via.state().self()).join();
                } catch (CompletionException e) {
                    net.crash(a); // a failed join: the node gives up, as a real one would retry later
                }
            }
            // Lookups right after the churn, before the ring has repaired itself.
            int[] r = lookups(net, random, 1_000);
            churnOk += r[0];
            churnHops += r[1];
            churnLookups += r[2];
            net.stabilizeRound();
            for (RingMaintenance m : new ArrayList<>(net.live())) {
                m.fixFinger().join();
            }
        }
        return new Result(n, (double) stable[1] / Math.max(1, stable[0]), (double) stable[0] / stable[2],
                (double) churnHops / Math.max(1, churnOk), (double) churnOk / churnLookups, churnLookups,
                net.messages(), System.currentTimeMillis() - t0);
    }

    /** {successes, hops of the successes, attempts}: success is finding the key's true live owner. */
    private static int[] lookups(SimulatedNetwork net, Random random, int count) {
        TreeMap<BigInteger, NodeRef> truth = new TreeMap<>();
        List<RingMaintenance> live = new ArrayList<>(net.live());
        live.forEach(m -> truth.put(m.state().self().id(), m.state().self()));
        int ok = 0;
        int hops = 0;
        for (int i = 0; i < count; i++) {
            RingMaintenance from = live.get(random.nextInt(live.size()));
            BigInteger key = new BigInteger(160, random);
            try {
                LookupResult found = from.lookup(key).join();
                if (found.owner().equals(RingInvariants.owner(truth, key))) {
                    ok++;
                    hops += found.hops();
                }
            } catch (CompletionException e) {
                // counted as a failed lookup
            }
        }
        return new int[] {ok, hops, count};
    }
}
