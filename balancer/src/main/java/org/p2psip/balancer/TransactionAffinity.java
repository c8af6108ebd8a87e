package org.p2psip.balancer;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Which node each recent client transaction went to, so that its
 * retransmissions, its CANCEL and the ACK of a non-2xx answer (all with the
 * same top Via branch and sent-by, RFC 3261 §17.2.3, §9.1) meet the server
 * transaction that already holds it, even after the balancer's placement
 * view or live set has moved its key to another node.
 *
 * <p>Without this, a retransmission sent on to a key's new owner meets no
 * transaction there: under digest authentication its nonce count is a
 * replay (401 stale: RFC 7616 has the server check that the count grows), and a
 * request with side effects is processed twice.
 *
 * <p>The table is direct-mapped and lossy, sized so that an entry survives
 * the retransmissions that matter at the rates one balancer carries:
 * {@value #SLOTS} slots at 16,000 new transactions a second last about 16 s,
 * past Timer E's first six retransmissions. Each slot is one {@code long}:
 * 32 bits of the transaction's hash as a tag, the node's index plus one
 * (0 marks an empty slot), and the time in units of 2<sup>26</sup> ns (67
 * ms), 24 bits, which wraps after 13 days. An entry older than Timer F's
 * 64·T1 (32 s, §17.1.2.2), when the client has given up, no longer counts.
 * A lost entry, or two threads writing one slot at once, only means the
 * placement decides as it would without the table.
 */
final class TransactionAffinity {

    /** Slots in the table, a power of two: 2 MiB of longs. */
    static final int SLOTS = 1 << 18;
    /** Nodes the 8-bit index field holds, one value being the empty marker. */
    static final int MAX_NODES = 255;
    private static final int TIME_SHIFT = 26;
    private static final long TIME_MASK = (1L << 24) - 1;
    /** Timer F, 64·T1 = 32 s, in table time units (rounded up). */
    private static final long LIFETIME = (32_000_000_000L >> TIME_SHIFT) + 1;

    private final AtomicLongArray slots = new AtomicLongArray(SLOTS);

    /**
     * The index of the node the transaction hashed to {@code hash} went to,
     * or -1 when the table does not know it (never seen, overwritten, or
     * older than Timer F at {@code now}).
     */
    int nodeOf(long hash, long now) {
        long entry = slots.get(slot(hash));
        if (entry == 0 || (int) (entry >>> 32) != tag(hash)) {
            return -1;
        }
        long age = (units(now) - (entry & TIME_MASK)) & TIME_MASK;
        if (age > LIFETIME) {
            return -1;
        }
        return (int) ((entry >>> 24) & 0xFF) - 1;
    }

    /** Records that the transaction hashed to {@code hash} went to node {@code index} at {@code now}. */
    void remember(long hash, int index, long now) {
        if (index < 0 || index >= MAX_NODES) {
            throw new IllegalArgumentException("node index " + index + " outside 0.." + (MAX_NODES - 1));
        }
        long entry = ((long) tag(hash) << 32) | ((long) (index + 1) << 24) | units(now);
        slots.lazySet(slot(hash), entry);
    }

    private static int slot(long hash) {
        return (int) hash & (SLOTS - 1);
    }

    private static int tag(long hash) {
        return (int) (hash >>> 32);
    }

    private static long units(long nanos) {
        return (nanos >>> TIME_SHIFT) & TIME_MASK;
    }
}
