package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Zave's invariants over a snapshot of live nodes' states, following each
 * node's <em>best successor</em> (the first live entry of its successor
 * list):
 * <ul>
 *   <li>AtLeastOneRing and AtMostOneRing: the best-successor graph has
 *       exactly one cycle;</li>
 *   <li>OrderedRing: that cycle goes round the identifier circle exactly
 *       once;</li>
 *   <li>ConnectedAppendages: every node off the ring reaches it, and lies
 *       between the ring node it reaches and that node's ring predecessor.</li>
 * </ul>
 * {@link #idealViolations} checks the stronger state stabilization reaches
 * without churn: every successor list and predecessor exactly right.
 */
public final class RingInvariants {

    private RingInvariants() {
    }

    /** Violated invariants, empty when all hold. */
    public static List<String> violations(Collection<RingState> live) {
        List<String> out = new ArrayList<>();
        if (live.isEmpty()) {
            return out;
        }
        Map<NodeRef, RingState> byRef = new HashMap<>();
        live.forEach(s -> byRef.put(s.self(), s));
        Map<NodeRef, NodeRef> best = new HashMap<>();
        for (RingState s : live) {
            Optional<NodeRef> b = s.successors().stream().filter(byRef::containsKey).findFirst();
            if (b.isEmpty()) {
                out.add(s.self() + " has no live successor");
                return out;
            }
            best.put(s.self(), b.get());
        }
        Set<NodeRef> onCycle = new HashSet<>();
        List<List<NodeRef>> cycles = new ArrayList<>();
        Set<NodeRef> done = new HashSet<>();
        for (NodeRef start : best.keySet()) {
            List<NodeRef> path = new ArrayList<>();
            Set<NodeRef> inPath = new HashSet<>();
            NodeRef n = start;
            while (!done.contains(n) && inPath.add(n)) {
                path.add(n);
                n = best.get(n);
            }
            if (inPath.contains(n)) {
                cycles.add(new ArrayList<>(path.subList(path.indexOf(n), path.size())));
                onCycle.addAll(cycles.get(cycles.size() - 1));
            }
            done.addAll(path);
        }
        if (cycles.isEmpty()) {
            out.add("AtLeastOneRing: no ring");
            return out;
        }
        if (cycles.size() > 1) {
            out.add("AtMostOneRing: " + cycles.size() + " rings " + cycles);
            return out;
        }
        IdSpace space = live.iterator().next().space();
        List<NodeRef> ring = cycles.get(0);
        if (ring.size() > 1) {
            BigInteger travelled = BigInteger.ZERO;
            for (NodeRef n : ring) {
                travelled = travelled.add(space.distance(n.id(), best.get(n).id()));
            }
            if (!travelled.equals(space.size())) {
                out.add("OrderedRing: the ring winds " + travelled + " / " + space.size() + " round the circle");
            }
        }
        Map<NodeRef, NodeRef> ringPred = new HashMap<>();
        ring.forEach(n -> ringPred.put(best.get(n), n));
        for (NodeRef a : best.keySet()) {
            if (onCycle.contains(a)) {
                continue;
            }
            NodeRef n = a;
            while (!onCycle.contains(n)) {
                n = best.get(n);
            }
            NodeRef pred = ringPred.get(n);
            if (ring.size() > 1 && !space.betweenOpen(pred.id(), a.id(), n.id())) {
                out.add("ConnectedAppendages: " + a + " hangs off " + n + " but is not between it and " + pred);
            }
        }
        return out;
    }

    /** Differences from the ideal ring of exactly these live nodes; empty when ideal. */
    public static List<String> idealViolations(Collection<RingState> live) {
        List<String> out = new ArrayList<>();
        TreeMap<BigInteger, NodeRef> sorted = new TreeMap<>();
        live.forEach(s -> sorted.put(s.self().id(), s.self()));
        for (RingState s : live) {
            List<NodeRef> expected = idealSuccessors(sorted, s.self(), s.successorListLength());
            if (!s.successors().equals(expected)) {
                out.add(s.self() + " successors " + s.successors() + " should be " + expected);
            }
            Optional<NodeRef> pred = sorted.size() == 1 ? Optional.empty() : Optional.of(idealPredecessor(sorted,
                    s.self()));
            if (!s.predecessor().equals(pred) && !(sorted.size() == 1)) {
                out.add(s.self() + " predecessor " + s.predecessor().orElse(null) + " should be "
                        + pred.orElse(null));
            }
        }
        return out;
    }

    /** The next {@code r} live nodes clockwise, stopping after wrapping back to {@code self}. */
    public static List<NodeRef> idealSuccessors(TreeMap<BigInteger, NodeRef> sorted, NodeRef self, int r) {
        List<NodeRef> out = new ArrayList<>();
        BigInteger at = self.id();
        while (out.size() < r) {
            Map.Entry<BigInteger, NodeRef> next = sorted.higherEntry(at);
            if (next == null) {
                next = sorted.firstEntry();
            }
            out.add(next.getValue());
            if (next.getValue().equals(self)) {
                break;
            }
            at = next.getKey();
        }
        return out;
    }

    public static NodeRef idealPredecessor(TreeMap<BigInteger, NodeRef> sorted, NodeRef self) {
        Map.Entry<BigInteger, NodeRef> prev = sorted.lowerEntry(self.id());
        return prev != null ? prev.getValue() : sorted.lastEntry().getValue();
    }

    /** The live owner of {@code id}: its successor on the circle. */
    public static NodeRef owner(TreeMap<BigInteger, NodeRef> sorted, BigInteger id) {
        Map.Entry<BigInteger, NodeRef> e = sorted.ceilingEntry(id);
        return e != null ? e.getValue() : sorted.firstEntry().getValue();
    }
}
