package org.p2psip.dht.kademlia;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import org.p2psip.core.dht.KeyRange;
import org.p2psip.core.dht.KeyRangeSet;

/**
 * The points a node is XOR-closest to among the nodes it knows (Kademlia
 * §2.1's metric, on the top 64 bits of each id): the keys it coordinates.
 *
 * <p>Unlike a Chord range this is in general no single interval. Where the
 * half of a block that matches a key's next bit holds no node, the key goes
 * to the other half and is then placed by its lower bits, so an empty half
 * is shared out among the other half's nodes in the pattern of their own
 * ids. The walk below follows that rule block by block: a block whose
 * closest candidate is one node is that node's whole; otherwise it is split
 * in two and each half keeps the candidates whose next bit matches it (all
 * of them when none does). Blocks are aligned, so each is one range.
 *
 * <p>Two ids that share a prefix of d bits split the space into 2^d stripes,
 * so the walk stops at depth {@value #MAX_DEPTH} and claims no block that is
 * still shared there: at most 2^12 ranges, and only ids closer than 2^-12 of
 * the space to one another leave points unclaimed (the balancer spreads
 * those by Call-ID). A claimed point is always one this node is closest to.
 * {@link #share} tells the cell's size exactly, unclaimed stripes included.
 */
final class XorCells {

    /** How deep the walk goes: blocks of 2^-12 of the space, a few thousand ranges at most. */
    static final int MAX_DEPTH = 12;

    private XorCells() {
    }

    /**
     * The points closer to {@code self} than to any of {@code others} by XOR,
     * down to blocks of depth {@value #MAX_DEPTH}.
     */
    static KeyRangeSet of(long self, Collection<Long> others) {
        List<KeyRange> out = new ArrayList<>();
        walk(0, 0, candidates(self, others), self, out);
        return KeyRangeSet.of(out);
    }

    /**
     * The exact share of the space closer to {@code self} than to any of
     * {@code others}, however fine its stripes. Bits on which all remaining
     * candidates agree place no key, so only the bits where they differ
     * count: at the highest of them, half the space goes to the candidates
     * on {@code self}'s side and half to the rest.
     */
    static double share(long self, Collection<Long> others) {
        List<Long> candidates = candidates(self, others);
        double share = 1;
        while (candidates.size() > 1) {
            long differing = 0;
            for (long c : candidates) {
                differing |= c ^ self;
            }
            long bit = Long.highestOneBit(differing);
            candidates.removeIf(c -> (c & bit) != (self & bit));
            share /= 2;
        }
        return share;
    }

    /** {@code self} first, then each other point once. */
    private static List<Long> candidates(long self, Collection<Long> others) {
        List<Long> candidates = new ArrayList<>(others.size() + 1);
        candidates.add(self);
        for (long o : others) {
            if (o != self && !candidates.contains(o)) {
                candidates.add(o);
            }
        }
        return candidates;
    }

    /** The block of points sharing {@code base}'s top {@code depth} bits, with its closest candidates. */
    private static void walk(long base, int depth, List<Long> candidates, long self, List<KeyRange> out) {
        if (!candidates.contains(self)) {
            return;
        }
        if (candidates.size() == 1) {
            out.add(new KeyRange(base, base | (-1L >>> depth)));
            return;
        }
        if (depth == MAX_DEPTH) {
            return;
        }
        long bit = 1L << (63 - depth);
        List<Long> zeros = new ArrayList<>();
        List<Long> ones = new ArrayList<>();
        for (long c : candidates) {
            ((c & bit) == 0 ? zeros : ones).add(c);
        }
        walk(base, depth + 1, zeros.isEmpty() ? ones : zeros, self, out);
        walk(base | bit, depth + 1, ones.isEmpty() ? zeros : ones, self, out);
    }
}
