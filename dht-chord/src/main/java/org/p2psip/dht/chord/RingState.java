package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One node's view of the ring and the state transitions of Zave's corrected
 * Chord ("Reasoning about identifier spaces: how to make Chord correct",
 * 2017), with no I/O: callers do the querying and hand the answers in. Not
 * thread-safe; one owner thread (or the simulation) drives it.
 *
 * <ul>
 *   <li><b>Successor list</b> of length {@code r}: the first entry is the
 *       successor; the rest let the node skip up to {@code r - 1} adjacent
 *       failures, which is what keeps "at least one ring" true.</li>
 *   <li><b>Join</b> sets only the successor list, from a member's successor
 *       and that node's list; the predecessor stays unknown until notified.</li>
 *   <li><b>Stabilize</b>: adopt the successor's predecessor when it is live
 *       and lies strictly between this node and its successor, then rebuild
 *       the list from the (new) successor's list ({@link #reconciled}).</li>
 *   <li><b>Rectify</b> (Zave's notify handler): take the notifier as
 *       predecessor when there is none, when it lies between the old one and
 *       this node, or when the old one is dead.</li>
 *   <li>A successor found dead is dropped from the list; the next entry takes
 *       over.</li>
 *   <li><b>Fingers</b> only shorten lookups; correctness never depends on them.</li>
 * </ul>
 */
public final class RingState {

    private final IdSpace space;
    private final NodeRef self;
    private final int r;
    private final List<NodeRef> successors = new ArrayList<>();
    private final NodeRef[] fingers;
    private NodeRef predecessor;
    private boolean predecessorConfirmed;
    private boolean successorConfirmed;
    private int nextFinger;

    /** A node alone on a new ring: its own successor, no predecessor. */
    public RingState(IdSpace space, NodeRef self, int successorListLength) {
        if (successorListLength < 1) {
            throw new IllegalArgumentException("the successor list needs at least one entry");
        }
        this.space = space;
        this.self = self;
        this.r = successorListLength;
        this.fingers = new NodeRef[space.bits()];
        successors.add(self);
    }

    public IdSpace space() {
        return space;
    }

    public NodeRef self() {
        return self;
    }

    public int successorListLength() {
        return r;
    }

    public NodeRef successor() {
        return successors.get(0);
    }

    public List<NodeRef> successors() {
        return List.copyOf(successors);
    }

    public Optional<NodeRef> predecessor() {
        return Optional.ofNullable(predecessor);
    }

    public Neighbours neighbours() {
        return new Neighbours(predecessor(), successors());
    }

    /**
     * {@code [head] + headsList}, cut after the first occurrence of this node
     * (the list has wrapped round the ring) and at {@code r} entries, without
     * repeats. Zave's rule for both join and stabilize.
     */
    public List<NodeRef> reconciled(NodeRef head, List<NodeRef> headsList) {
        Set<NodeRef> out = new LinkedHashSet<>();
        out.add(head);
        if (!head.equals(self)) {
            for (NodeRef n : headsList) {
                if (out.size() >= r) {
                    break;
                }
                out.add(n);
                if (n.equals(self)) {
                    break;
                }
            }
        }
        List<NodeRef> list = new ArrayList<>(out);
        return list.subList(0, Math.min(r, list.size()));
    }

    /** Join: successor list from the member's successor of this id and its list. */
    public void join(NodeRef successor, List<NodeRef> successorsList) {
        setPredecessor(null);
        replaceSuccessors(reconciled(successor, successorsList));
    }

    /**
     * Stabilize, first half: whether {@code successorsPredecessor} should be
     * queried to become the new successor (it lies strictly between).
     */
    public boolean shouldAdopt(NodeRef successorsPredecessor) {
        return !successorsPredecessor.equals(self)
                && space.betweenOpen(self.id(), successorsPredecessor.id(), successor().id());
    }

    /** Stabilize, second half: successor list rebuilt from the chosen successor's answer. */
    public boolean adoptSuccessor(NodeRef successor, List<NodeRef> successorsList) {
        return replaceSuccessors(reconciled(successor, successorsList));
    }

    /**
     * Rectify: whether {@code candidate} replaces the predecessor, given
     * whether the current predecessor answered. Returns true when it did.
     */
    public boolean rectify(NodeRef candidate, boolean predecessorAlive) {
        if (candidate.equals(self) || candidate.equals(predecessor)) {
            return false;
        }
        if (predecessor == null || !predecessorAlive
                || space.betweenOpen(predecessor.id(), candidate.id(), self.id())) {
            setPredecessor(candidate);
            return true;
        }
        return false;
    }

    /** Whether rectify would take {@code candidate} without asking if the predecessor lives. */
    public boolean rectifyNeedsLivenessCheck(NodeRef candidate) {
        return predecessor != null && !candidate.equals(self) && !candidate.equals(predecessor)
                && !space.betweenOpen(predecessor.id(), candidate.id(), self.id());
    }

    /** The predecessor did not answer: forget it until a node notifies. */
    public void predecessorFailed() {
        setPredecessor(null);
    }

    /** Sets the predecessor outright; for a graceful leave, where the leaver names its own. */
    public void predecessorHandedOver(NodeRef leaver, NodeRef leaversPredecessor) {
        if (leaver.equals(predecessor)) {
            setPredecessor(leaversPredecessor == null || leaversPredecessor.equals(self) ? null : leaversPredecessor);
        }
    }

    /**
     * {@code dead} did not answer: drop it from the successor list (the next
     * entry takes over) and from the fingers. A node that has lost every
     * successor is alone.
     */
    public void forget(NodeRef dead) {
        if (dead.equals(self)) {
            return;
        }
        if (dead.equals(successors.get(0))) {
            successorConfirmed = false;
        }
        successors.remove(dead);
        if (successors.isEmpty()) {
            successors.add(self);
        }
        for (int i = 0; i < fingers.length; i++) {
            if (dead.equals(fingers[i])) {
                fingers[i] = null;
            }
        }
        if (dead.equals(predecessor)) {
            setPredecessor(null);
        }
    }

    private void setPredecessor(NodeRef p) {
        if (!Objects.equals(p, predecessor)) {
            predecessor = p;
            predecessorConfirmed = false;
        }
    }

    /**
     * The predecessor answered check-predecessor with its neighbours: it is
     * confirmed while it names this node as its successor. A predecessor
     * pointer can lag behind joins — a node that has not yet been notified
     * by the nodes that joined in front of it still points past them — and
     * such a node must not serve their ranges. Returns whether confirmation
     * changed.
     */
    public boolean predecessorAnswered(NodeRef answered, Neighbours neighbours) {
        if (!answered.equals(predecessor)) {
            return false;
        }
        boolean confirmed = !neighbours.successors().isEmpty() && neighbours.successors().get(0).equals(self);
        boolean changed = confirmed != predecessorConfirmed;
        predecessorConfirmed = confirmed;
        return changed;
    }

    /**
     * Stabilize asked the successor for its neighbours: it is confirmed
     * while it names this node as its predecessor — until then it still
     * serves this node's range itself. Returns whether confirmation changed.
     */
    public boolean successorAnswered(NodeRef answered, Neighbours neighbours) {
        if (!answered.equals(successor())) {
            return false;
        }
        boolean confirmed = neighbours.predecessor().map(self::equals).orElse(false);
        boolean changed = confirmed != successorConfirmed;
        successorConfirmed = confirmed;
        return changed;
    }

    /** Whether the successor has said, since it became the successor, that this node is its predecessor. */
    /**
     * Forgets both confirmations, after this node stood still long enough
     * that its neighbours may have moved on: it serves, and acts as a fence,
     * only once they have confirmed it again.
     */
    public void forgetConfirmations() {
        predecessorConfirmed = false;
        successorConfirmed = false;
    }

    public boolean successorConfirmed() {
        return !successor().equals(self) && successorConfirmed;
    }

    /** Whether the predecessor has said, since it became the predecessor, that this node is its successor. */
    public boolean predecessorConfirmed() {
        return predecessor != null && predecessorConfirmed;
    }

    /** Whether this node owns {@code id}: it lies in (predecessor, self], or no predecessor is known. */
    public boolean owns(BigInteger id) {
        if (successor().equals(self)) {
            return true;
        }
        return predecessor == null || space.betweenRightClosed(predecessor.id(), id, self.id());
    }

    /**
     * One step of a lookup for {@code id} at this node: the answer when
     * {@code id ∈ (self, successor]}, else the closest preceding node known.
     */
    public HopReply nextHop(BigInteger id) {
        NodeRef succ = successor();
        if (succ.equals(self) || id.equals(self.id())) {
            return HopReply.owner(self, successorsAfter(self));
        }
        if (space.betweenRightClosed(self.id(), id, succ.id())) {
            return HopReply.owner(succ, successorsAfter(succ));
        }
        return HopReply.next(closestPreceding(id), successors());
    }

    /** The successors of {@code owner} this node knows: its list after the owner. */
    private List<NodeRef> successorsAfter(NodeRef owner) {
        List<NodeRef> all = new ArrayList<>(successors);
        if (!all.contains(self)) {
            all.add(self);
        }
        int at = all.indexOf(owner);
        List<NodeRef> after = new ArrayList<>();
        for (int i = at + 1; i < all.size(); i++) {
            if (!all.get(i).equals(owner)) {
                after.add(all.get(i));
            }
        }
        return after;
    }

    /** The known node in (self, id) closest to id: fingers and successors; the successor when none. */
    public NodeRef closestPreceding(BigInteger id) {
        NodeRef best = null;
        BigInteger bestDistance = null;
        for (NodeRef n : candidates()) {
            if (n.equals(self) || !space.betweenOpen(self.id(), n.id(), id)) {
                continue;
            }
            BigInteger d = space.distance(n.id(), id);
            if (bestDistance == null || d.compareTo(bestDistance) < 0) {
                best = n;
                bestDistance = d;
            }
        }
        return best != null ? best : successor();
    }

    private List<NodeRef> candidates() {
        List<NodeRef> all = new ArrayList<>(successors);
        for (NodeRef f : fingers) {
            if (f != null) {
                all.add(f);
            }
        }
        return all;
    }

    /** Fix-fingers: the finger whose start is looked up next, round robin. */
    public int nextFingerToFix() {
        int i = nextFinger;
        nextFinger = (nextFinger + 1) % fingers.length;
        return i;
    }

    /**
     * Records {@code owner} as finger {@code i}, and for every later finger
     * whose start it also covers ({@code start ∈ (self, owner]}), so a ring
     * of N nodes needs about log2 N lookups to fill 160 fingers. Returns the
     * next finger still to look up.
     */
    public int setFinger(int i, NodeRef owner) {
        int j = i;
        while (j < fingers.length) {
            BigInteger start = space.fingerStart(self.id(), j);
            if (j != i && !(owner.equals(self) ? false : space.betweenRightClosed(self.id(), start, owner.id()))) {
                break;
            }
            fingers[j] = owner;
            j++;
        }
        nextFinger = j % fingers.length;
        return nextFinger;
    }

    public Optional<NodeRef> finger(int i) {
        return Optional.ofNullable(fingers[i]);
    }

    /**
     * Every other node this one knows: its predecessor, then its successors,
     * then its fingers in order, each once.
     */
    public List<NodeRef> knownNodes() {
        Set<NodeRef> known = new LinkedHashSet<>();
        if (predecessor != null) {
            known.add(predecessor);
        }
        known.addAll(successors);
        for (NodeRef f : fingers) {
            if (f != null) {
                known.add(f);
            }
        }
        known.remove(self);
        return List.copyOf(known);
    }

    private boolean replaceSuccessors(List<NodeRef> list) {
        if (list.equals(successors)) {
            return false;
        }
        if (!list.get(0).equals(successors.get(0))) {
            successorConfirmed = false;
        }
        successors.clear();
        successors.addAll(list);
        return true;
    }

    @Override
    public String toString() {
        return self + " pred=" + predecessor + " succ=" + successors;
    }
}
