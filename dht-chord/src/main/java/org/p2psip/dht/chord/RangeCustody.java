package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.p2psip.core.dht.KeyRangeSet;

/**
 * Which keys one node answers for and which it holds whole, and what each
 * ring change or maintenance round makes it do about them: pure state and
 * decisions, which read the node's {@link RingState} and answer with
 * {@link CustodyAction}s for {@link KeyMover} to carry out. Not
 * thread-safe: the node's owner thread drives it.
 *
 * <ul>
 *   <li>A predecessor pointer can lag behind joins: a node not yet notified
 *       by the nodes that joined in front of it still points past them. So a
 *       node serves its range only while its predecessor confirms
 *       (check-predecessor) that this node is its successor, and its
 *       successor that this node is its predecessor (until then the
 *       successor still serves the range).</li>
 *   <li>An owner serves only the range it has caught up on. Whenever its
 *       range grows — it has just joined, its predecessor died or left — it
 *       first fetches the gained range from its first successors (the
 *       previous owner or the replicas of the keys in it) and refuses reads
 *       and writes there until every one of them has answered. A node that
 *       has just joined also needs one of them to hold the whole range (to
 *       have served it), not just some copies: two nodes joining one gap at
 *       once would otherwise fetch from each other while neither has the
 *       keys, and a new owner would answer "absent" for a key still on its
 *       way, so that a registrar's write at version absent would replace the
 *       key's bindings. A range that shrank is handed back instead.</li>
 *   <li>When the predecessor dies this node already holds replicas of its
 *       keys and re-replicates them, as it does whenever its replica set
 *       changes and, in case a push was lost, every
 *       {@value #ANTI_ENTROPY_ROUNDS} rounds: what changed since the last
 *       push a replica took, and every {@value #WHOLE_PUSH_EVERY}th time
 *       every key (a replica that restarted unnoticed lost its copies).</li>
 *   <li>A node that does not know its predecessor serves nothing (unless it
 *       is alone): it cannot tell which keys are its own. A node whose every
 *       successor stopped answering is cut off, not alone, and serves
 *       nothing while it tries to rejoin ({@link RingIsolation}).</li>
 * </ul>
 */
final class RangeCustody {

    /** Every this many rounds the owner re-pushes its keys to its replicas, in case a push was lost. */
    static final int ANTI_ENTROPY_ROUNDS = 20;
    /**
     * Every this many re-pushes carries every key, not just what changed:
     * a whole push of half a million keys every 20 rounds was a third of a
     * loaded node's owner thread, and most of it told the replicas nothing.
     */
    static final int WHOLE_PUSH_EVERY = 30;
    /**
     * Rounds a joiner keeps looking for a node that holds all of its range
     * before it serves with the copies its successors gave it (a ring too
     * large for one walk round it, or a holder that keeps timing out); also
     * {@link RingIsolation#PATIENCE}.
     */
    static final int FETCH_PATIENCE = 20;

    /** How a search for a node holding a whole range ended. */
    enum WholeRangeSearch {
        /** A node that has served the range pushed it. */
        FOUND,
        /** All the way round the ring and nobody has: the range's last owner is gone. */
        NOWHERE,
        /** The walk's step limit came first. */
        GAVE_UP
    }

    private final RingState ring;
    private final IdSpace space;
    private final int replicas;
    /** The lower (exclusive) end of the range caught up on and served, up to this node; empty at first. */
    private Optional<BigInteger> servedFrom = Optional.empty();
    /** The lower end of the widest range this node has served: it holds every key of that range. */
    private Optional<BigInteger> heldFrom = Optional.empty();
    /**
     * Whether this node has been alone (or started the ring), and so holds every key there was.
     * Volatile: the first node of a ring sets it on the thread that starts it.
     */
    private volatile boolean heldAll;
    private boolean fetching;
    private final RingIsolation isolation = new RingIsolation();
    private int wholeRangeMisses;
    /** A fetch under way when this node stalled: what it brings may be older than what others wrote since. */
    private boolean fetchOvertaken;
    private long rounds;
    private Optional<NodeRef> lastPredecessor = Optional.empty();
    private boolean lastConfirmed;
    private List<NodeRef> lastReplicaTargets = List.of();

    /** Custody of a node that holds nothing yet; {@code replicas} copies of every key, the owner's included. */
    RangeCustody(RingState ring, int replicas) {
        if (replicas < 1) {
            throw new IllegalArgumentException("a key needs at least one copy, not " + replicas);
        }
        this.ring = ring;
        this.space = ring.space();
        this.replicas = replicas;
    }

    /** This node starts a new ring: it holds every key there is, and every later fetch traces back to it. */
    void startsRing() {
        heldAll = true;
    }

    // ---- events ------------------------------------------------------------------------------

    /**
     * A maintenance round begins: a cut-off node that knew only one other
     * member and has waited long enough serves alone.
     */
    List<CustodyAction> roundStarted() {
        rounds++;
        int waited = isolation.roundStarted();
        if (waited > 0) {
            heldAll = true;
            return List.of(new CustodyAction.GaveUpOnRing(waited));
        }
        return List.of();
    }

    /**
     * Whether this node, on its own, should join again: it was told of other members
     * ({@code seedsKnown}) or had successors. All of them dying at once is more than r - 1 adjacent
     * failures, which Zave's model excludes; a partition or a starved machine that made them all look
     * dead is likelier, and the node must not stay a ring of one beside the real ring.
     */
    boolean shouldRejoin(boolean seedsKnown) {
        return onItsOwn() && (seedsKnown || !isolation.formerSuccessors().isEmpty());
    }

    /** The successors this node last had, to rejoin through first. */
    List<NodeRef> formerSuccessors() {
        return isolation.formerSuccessors();
    }

    /** A maintenance round ended: catch up, and now and then re-push owned keys to the replicas. */
    List<CustodyAction> roundEnded() {
        List<CustodyAction> actions = new ArrayList<>(catchUp());
        if (rounds % ANTI_ENTROPY_ROUNDS == 0) {
            boolean changesOnly = rounds % ((long) ANTI_ENTROPY_ROUNDS * WHOLE_PUSH_EVERY) != 0;
            pushOwned(replicaTargets(), changesOnly).ifPresent(actions::add);
        }
        return actions;
    }

    /**
     * Stabilize or rectify changed the ring as this node sees it: ask a new,
     * unconfirmed predecessor at once, catch up, and bring every replica up
     * to date when ownership grew (a dead predecessor), the predecessor has
     * just confirmed, or the replica set changed.
     */
    List<CustodyAction> ringChanged() {
        Optional<NodeRef> pred = ring.predecessor();
        Optional<NodeRef> oldPred = lastPredecessor;
        lastPredecessor = pred;
        boolean confirmed = confirmedBothWays();
        boolean newlyConfirmed = confirmed && !lastConfirmed;
        lastConfirmed = confirmed;
        List<CustodyAction> actions = new ArrayList<>();
        if (pred.isPresent() && !confirmed && !pred.equals(oldPred)) {
            actions.add(new CustodyAction.AskPredecessor());
        }
        actions.addAll(catchUp());
        List<NodeRef> targets = replicaTargets();
        if (pred.isPresent() && (!pred.equals(oldPred) || newlyConfirmed || !targets.equals(lastReplicaTargets))) {
            pushOwned(targets, false).ifPresent(actions::add);
        }
        lastReplicaTargets = targets;
        widenHeld();
        return actions;
    }

    /**
     * A member left gracefully (the ring state has already dropped it). If
     * it was the last other one, it handed its keys over: this node is
     * alone, not cut off, and has nobody to rejoin through.
     */
    void memberLeft() {
        if (ring.successor().equals(ring.self())) {
            isolation.lastMemberLeft();
        }
    }

    /**
     * This node stood still for longer than its peers wait before serving a
     * silent node's range (see {@link OwnerThread}): its successor may have
     * served and written that range meanwhile, and its own copies may be
     * stale. Like a joiner, it serves nothing until it has fetched its range
     * again from a node that held all of it, and it no longer claims to hold
     * any range whole. A fetch that was under way is not trusted either.
     */
    void stalled() {
        servedFrom = Optional.empty();
        heldFrom = Optional.empty();
        heldAll = false;
        lastConfirmed = false;
        fetchOvertaken = fetching;
    }

    /** A {@link CustodyAction.Fetch} failed: it is tried again at the next catch-up. */
    void fetchFailed() {
        fetching = false;
    }

    /**
     * Every source of {@code fetch} answered, and the search for a node
     * holding the whole range ended as {@code search}. A joiner that gave up
     * keeps looking for {@link #FETCH_PATIENCE} rounds, then serves from the
     * copies it got. The range is served if the predecessor has not moved
     * meanwhile; otherwise this node catches up again.
     */
    List<CustodyAction> fetched(CustodyAction.Fetch fetch, WholeRangeSearch search) {
        fetching = false;
        if (fetchOvertaken) {
            fetchOvertaken = false;
            return catchUp();
        }
        if (search == WholeRangeSearch.GAVE_UP && ++wholeRangeMisses < FETCH_PATIENCE) {
            return List.of();
        }
        List<CustodyAction> actions = new ArrayList<>();
        if (search != WholeRangeSearch.FOUND) {
            actions.add(new CustodyAction.ServedFromCopies(fetch.from(), fetch.to()));
        }
        wholeRangeMisses = 0;
        if (ring.predecessor().map(NodeRef::id).equals(Optional.of(fetch.from()))) {
            actions.add(serveFrom(fetch.from()));
            pushOwned(replicaTargets(), false).ifPresent(actions::add);
        } else {
            actions.addAll(catchUp());
        }
        return actions;
    }

    /**
     * Brings {@link #servedFrom} to the predecessor. A range that shrank
     * hands the difference back; a range that grew is fetched from the first
     * successors before it is served. Nothing happens while a fetch is under
     * way or no predecessor is known.
     */
    private List<CustodyAction> catchUp() {
        if (ring.successor().equals(ring.self())) {
            List<CustodyAction> actions = isolation.noSuccessor() ? List.of(new CustodyAction.CutOff()) : List.of();
            if (!isolation.cutOff()) {
                heldAll = true;
            }
            return actions;
        }
        isolation.inRing(firstSuccessors(ring.successorListLength()));
        Optional<NodeRef> pred = ring.predecessor();
        if (fetching || pred.isEmpty()) {
            return List.of();
        }
        BigInteger from = pred.get().id();
        BigInteger self = ring.self().id();
        if (servedFrom.isPresent()
                && (servedFrom.get().equals(from) || space.betweenOpen(servedFrom.get(), from, self))) {
            List<CustodyAction> actions = new ArrayList<>();
            if (!servedFrom.get().equals(from)) {
                actions.add(new CustodyAction.HandBack(pred.get(), servedFrom.get(), from));
            }
            actions.add(serveFrom(from));
            return actions;
        }
        // A joiner has nothing yet and must find the whole range somewhere; a range that grew
        // (a failed or departed predecessor) is already here as replicas or the leaver's hand-off.
        boolean wholeRangeNeeded = servedFrom.isEmpty() && !heldAll;
        BigInteger to = servedFrom.orElse(self);
        fetching = true;
        return List.of(new CustodyAction.Fetch(from, to, fetchSources(), wholeRangeNeeded));
    }

    /** Caught up on {@code (from, self]}: served once both neighbours have confirmed too. */
    private CustodyAction serveFrom(BigInteger from) {
        CustodyAction.CaughtUp caughtUp = new CustodyAction.CaughtUp(from, servedFrom);
        servedFrom = Optional.of(from);
        widenHeld();
        return caughtUp;
    }

    /** While serving, the range served counts towards what this node holds whole. */
    private void widenHeld() {
        if (!servingOwnRange()) {
            return;
        }
        BigInteger from = servedFrom.get();
        BigInteger self = ring.self().id();
        if (heldFrom.isEmpty() || space.distance(from, self).compareTo(space.distance(heldFrom.get(), self)) > 0) {
            heldFrom = Optional.of(from);
        }
    }

    private Optional<CustodyAction> pushOwned(List<NodeRef> targets, boolean changesOnly) {
        if (ring.predecessor().isEmpty() || targets.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new CustodyAction.PushOwned(targets, changesOnly));
    }

    // ---- questions -----------------------------------------------------------------------------

    /**
     * Whether this node answers for {@code id} as its owner now: it owns it
     * by its ring state and has caught up on its range (or is alone).
     */
    boolean serves(BigInteger id) {
        if (onItsOwn()) {
            // Alone only once catch-up has seen it so: a ring state that lost its last successor a moment
            // ago, before the custody heard of it, is cut off until shown otherwise.
            return isolation.servesAlone();
        }
        return servingOwnRange() && ring.owns(id);
    }

    /** Whether this node holds every key with an id in {@code (from, to]}: it has served that range. */
    boolean holdsWhole(BigInteger from, BigInteger to) {
        if (heldAll) {
            return true;
        }
        if (heldFrom.isEmpty()) {
            return false;
        }
        BigInteger start = heldFrom.get();
        BigInteger span = space.distance(start, ring.self().id());
        return space.distance(start, to).compareTo(span) <= 0
                && space.distance(start, from).compareTo(space.distance(start, to)) <= 0;
    }

    /**
     * Whether {@code requester}, which has come for a range whole, lies
     * inside this node's range: it has joined in front, though the nodes
     * between have not notified this one yet (several joined the same gap at
     * once). Its fetch then counts as its notify, so this node stops serving
     * the range before handing it over; otherwise both would serve it until
     * the notifications caught up.
     */
    boolean shouldYieldTo(NodeRef requester) {
        BigInteger self = ring.self().id();
        return ring.predecessor().map(p -> space.betweenOpen(p.id(), requester.id(), self))
                .orElse(!requester.equals(ring.self()));
    }

    /** The nodes that hold this node's keys as replicas: its first {@code replicas - 1} successors. */
    List<NodeRef> replicaTargets() {
        return firstSuccessors(replicas - 1);
    }

    /**
     * Where a gained range's keys are: its previous owner and the replicas,
     * all among this node's first successors. At least two are asked, so two
     * nodes joining in one gap at once still find the keys.
     */
    List<NodeRef> fetchSources() {
        return firstSuccessors(Math.max(replicas - 1, 2));
    }

    /** Up to {@code n} distinct successors other than this node, nearest first. */
    private List<NodeRef> firstSuccessors(int n) {
        List<NodeRef> out = new ArrayList<>();
        for (NodeRef s : ring.successors()) {
            if (out.size() >= n) {
                break;
            }
            if (!s.equals(ring.self()) && !out.contains(s)) {
                out.add(s);
            }
        }
        return out;
    }

    /** No successor but itself and no predecessor: alone, or cut off from the ring. */
    private boolean onItsOwn() {
        return ring.successor().equals(ring.self()) && ring.predecessor().isEmpty();
    }

    /**
     * Whether this node serves {@code (predecessor, self]}: it has caught up
     * on exactly that range and both neighbours confirm it.
     */
    private boolean servingOwnRange() {
        Optional<NodeRef> pred = ring.predecessor();
        return pred.isPresent() && confirmedBothWays() && servedFrom.equals(Optional.of(pred.get().id()));
    }

    /**
     * Whether both neighbours agree this node sits between them: its
     * predecessor names it as successor, and its successor names it as
     * predecessor (so the successor no longer serves this node's range).
     */
    private boolean confirmedBothWays() {
        return ring.predecessorConfirmed() && ring.successorConfirmed();
    }

    /**
     * The keys this node answers for as owner now, as points: every key when
     * it serves alone, {@code (predecessor, self]} when it serves its range,
     * else none ({@link #serves}'s rule, for the balancer).
     */
    KeyRangeSet servedPoints() {
        if (onItsOwn()) {
            return isolation.servesAlone() ? KeyRangeSet.ALL : KeyRangeSet.NONE;
        }
        return servingOwnRange()
                ? KeyRangeSet.arc(space.pointOf(servedFrom.get()), space.pointOf(ring.self().id()))
                : KeyRangeSet.NONE;
    }

    /** The lower end of the range caught up on, if any. */
    Optional<BigInteger> servedFrom() {
        return servedFrom;
    }

    /** What this node serves, for the log: a range, every key, or nothing. */
    String serving() {
        if (onItsOwn()) {
            return isolation.cutOff() ? "nothing (cut off)" : "every key (alone)";
        }
        return servingOwnRange()
                ? "(" + abbreviated(servedFrom.get()) + ", " + abbreviated(ring.self().id()) + "]"
                : "nothing";
    }

    /** The first six hex digits of a ring id, enough to place it in a log line. */
    static String abbreviated(BigInteger id) {
        return String.format("%040x", id).substring(0, 6);
    }
}
