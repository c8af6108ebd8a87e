package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Where on the ring a node that joins through this one should take its id:
 * inside the widest gap between members this node knows to be adjacent
 * (its predecessor, itself and its successor list, the whole ring when the
 * list has come round to this node), counting the ids it has handed other
 * joiners in the last {@code holdNanos} as members already, so that nodes
 * joining at once through it split different gaps.
 *
 * <p>With ids from SHA-1 of each address, the node that owns the most of a
 * ring of three or four owns 40-80 % of it in most rings, and with the owner
 * policy it carries that share of every request: in OwnerRoutingChurnTest at
 * 1,875 REGISTER/s (29 Nov), rings whose largest share was 0.40-0.81 lost
 * 3.9-9.3 % of the REGISTERs, one whose largest was 0.34 lost 0.04 %.
 * Splitting the widest gap keeps four nodes joining one after another
 * between an eighth and a half of the ring each (the idea of Cassandra's
 * token allocation), where virtual nodes would multiply every node's ring
 * state.
 *
 * <p>Pure but for its memory of recent answers: time comes in. Thread-safe.
 */
final class JoinPlacement {

    /** A gap (from, to] of the ring; {@code from} equal to {@code to} is the whole ring. */
    record Gap(BigInteger from, BigInteger to) {
    }

    private record Handed(BigInteger at, long untilNanos) {
    }

    private final IdSpace space;
    private final long holdNanos;
    private final List<Handed> handed = new ArrayList<>();

    /**
     * @param holdNanos how long a gap handed to a joiner counts as split: about as long as a join takes
     */
    JoinPlacement(IdSpace space, long holdNanos) {
        this.space = space;
        this.holdNanos = holdNanos;
    }

    /**
     * The id for a joiner whose address hashes to {@code joinerSeed}: its
     * point ({@link #idIn}) in the {@link #widest} gap; remembered as taken.
     */
    synchronized BigInteger place(Optional<BigInteger> predecessor, BigInteger self, List<BigInteger> successors,
                                  BigInteger joinerSeed, long nowNanos) {
        BigInteger id = idIn(space, widest(predecessor, self, successors, nowNanos), joinerSeed);
        handed.add(new Handed(id, nowNanos + holdNanos));
        return id;
    }

    /**
     * The widest gap of the arc from {@code predecessor} (or this node)
     * through {@code self} to the last of {@code successors}, counting the
     * ids handed out recently as members.
     *
     * @param successors the successor list; it ends at {@code self} when it has come round the whole ring
     */
    synchronized Gap widest(Optional<BigInteger> predecessor, BigInteger self, List<BigInteger> successors,
                            long nowNanos) {
        handed.removeIf(h -> h.untilNanos() - nowNanos <= 0);
        List<BigInteger> arc = new ArrayList<>();
        predecessor.ifPresent(arc::add);
        arc.add(self);
        arc.addAll(successors);
        BigInteger start = arc.get(0);
        BigInteger end = arc.get(arc.size() - 1);
        boolean whole = successors.contains(self);
        BigInteger span = whole ? space.size() : space.distance(start, end);
        // Points of the arc by their distance from its start; the end closes the last gap.
        TreeMap<BigInteger, BigInteger> points = new TreeMap<>();
        for (BigInteger id : arc) {
            points.put(space.distance(start, id), id);
        }
        for (Handed h : handed) {
            BigInteger offset = space.distance(start, h.at());
            if (offset.signum() > 0 && offset.compareTo(span) < 0) {
                points.put(offset, h.at());
            }
        }
        points.put(span, whole ? start : end);
        Gap widest = null;
        BigInteger widestSpan = BigInteger.ZERO;
        Iterator<Map.Entry<BigInteger, BigInteger>> it = points.entrySet().iterator();
        Map.Entry<BigInteger, BigInteger> previous = it.next();
        while (it.hasNext()) {
            Map.Entry<BigInteger, BigInteger> next = it.next();
            BigInteger width = next.getKey().subtract(previous.getKey());
            if (width.compareTo(widestSpan) > 0) {
                widestSpan = width;
                widest = new Gap(previous.getValue(), next.getValue());
            }
            previous = next;
        }
        return widest == null ? new Gap(self, self) : widest;
    }

    /**
     * The id a joiner takes in {@code gap}: between three and five eighths of
     * the way through it, at the point its own {@code seed} (SHA-1 of its
     * address) picks, so that two joiners placed in one gap by different
     * members still take different ids.
     */
    static BigInteger idIn(IdSpace space, Gap gap, BigInteger seed) {
        BigInteger width = gap.from().equals(gap.to()) ? space.size() : space.distance(gap.from(), gap.to());
        BigInteger eighth = width.shiftRight(3);
        BigInteger within = eighth.signum() == 0 ? BigInteger.ZERO : seed.mod(eighth.shiftLeft(1));
        return space.normalize(gap.from().add(eighth.multiply(BigInteger.valueOf(3))).add(within));
    }
}
