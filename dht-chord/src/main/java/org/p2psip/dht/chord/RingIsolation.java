package org.p2psip.dht.chord;

import java.util.List;

/**
 * Whether a node that has no successor but itself is alone — the ring is
 * this node — or cut off from a ring that still exists, and when a cut-off
 * node may give up on it. Part of {@link RangeCustody}: pure state, driven
 * by the owner thread.
 *
 * <p>The rule. A node whose every successor stopped answering is cut off,
 * not alone: it serves nothing while it tries to rejoin through the
 * successors it last had. Only a node whose ring was itself and one other
 * gives up after {@value #PATIENCE} rounds and serves alone: it cannot tell
 * a crash of that one from a partition, and a two-node ring would otherwise
 * stop at its first crash. A node that knew two or more others keeps
 * refusing, since all of them failing at once is more than the r - 1
 * adjacent failures replication survives, while a partition cutting it off
 * is common — and a write it acknowledged alone would be lost when the
 * partition heals.
 */
final class RingIsolation {

    /** Rounds a cut-off node that knew one other member looks for the ring before it serves alone. */
    static final int PATIENCE = RangeCustody.FETCH_PATIENCE;

    /** Whether this node was its own successor when last looked at (it starts so). */
    private boolean alone = true;
    /** Alone because every successor stopped answering, not because the ring is this node alone. */
    private boolean cutOff;
    private int cutOffRounds;
    /** The successors this node last had, to rejoin through if it is cut off. */
    private List<NodeRef> lastPeers = List.of();

    /**
     * A maintenance round begins; the rounds a cut-off node waited when
     * this round makes it give up and serve alone, else 0.
     */
    int roundStarted() {
        if (cutOff && lastPeers.size() < 2 && ++cutOffRounds >= PATIENCE) {
            cutOff = false;
            return cutOffRounds;
        }
        return 0;
    }

    /** The ring state shows no successor but this node; true when that makes it newly cut off. */
    boolean noSuccessor() {
        boolean newlyCutOff = !alone;
        if (newlyCutOff) {
            cutOff = true;
            cutOffRounds = 0;
        }
        alone = true;
        return newlyCutOff;
    }

    /** The ring state shows successors again: {@code peers} are the ones to rejoin through if they go. */
    void inRing(List<NodeRef> peers) {
        alone = false;
        cutOff = false;
        lastPeers = List.copyOf(peers);
    }

    /** The last other member left gracefully and handed its keys over: alone, with nobody to rejoin. */
    void lastMemberLeft() {
        alone = true;
        lastPeers = List.of();
    }

    /** Alone by the ring's own account, not cut off: this node serves every key. */
    boolean servesAlone() {
        return alone && !cutOff;
    }

    boolean cutOff() {
        return cutOff;
    }

    /** The successors this node last had. */
    List<NodeRef> formerSuccessors() {
        return lastPeers;
    }
}
