package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.p2psip.core.overlay.TimeoutSuspicion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives one node's {@link RingState} through Zave's operations by asking
 * other nodes over a {@link RingRpc}: join, stabilize, rectify (on notify),
 * fix-fingers, check-predecessor, and iterative lookups that count their
 * hops. Every touch of the state runs on {@code stateExecutor} (the node's
 * owner thread; a direct executor in the simulation), so the state needs no
 * locks. A node that refuses is treated as dead and forgotten at once; one
 * whose calls time out, once its {@link TimeoutSuspicion} condemns it, which
 * excuses the timeouts this node's own lag explains.
 */
public final class RingMaintenance {

    private static final Logger LOG = LoggerFactory.getLogger(RingMaintenance.class);

    /** A lookup gives up after this many hops; a healthy ring needs about log2 N. */
    private static final int MAX_HOPS = 64;
    /** Silent nodes a lookup steps round before it gives up. */
    private static final int MAX_DEAD = 8;

    private final RingState state;
    /** Which silent nodes to take for dead; touched on the state executor only. */
    private final TimeoutSuspicion<NodeRef> suspicion;
    private final LongSupplier nanos;
    private final RingRpc rpc;
    private final Executor stateExecutor;
    private final AtomicLong writtenOff = new AtomicLong();
    private volatile Consumer<RingState> onChange = s -> { };
    /** Whether this node notifies its successor, which hands it its range; not while it holds its share back. */
    private volatile boolean claiming = true;

    /** A node that takes a peer for dead after {@value TimeoutSuspicion#TIMEOUTS} timeouts in a row, however close together. */
    public RingMaintenance(RingState state, RingRpc rpc, Executor stateExecutor) {
        this(state, rpc, stateExecutor, Duration.ZERO, System::nanoTime);
    }

    /**
     * @param suspicionWindow how long, at least, a peer's calls keep timing out before it is taken for dead
     * @param nanos           the monotonic clock that window runs on
     */
    public RingMaintenance(RingState state, RingRpc rpc, Executor stateExecutor, Duration suspicionWindow,
                           LongSupplier nanos) {
        this(state, rpc, stateExecutor, new TimeoutSuspicion<>(suspicionWindow), nanos);
    }

    /**
     * @param suspicion which peers whose calls time out to take for dead (and whether this node's own lag
     *                  excuses a timeout)
     * @param nanos     the monotonic clock it runs on
     */
    public RingMaintenance(RingState state, RingRpc rpc, Executor stateExecutor, TimeoutSuspicion<NodeRef> suspicion,
                           LongSupplier nanos) {
        this.state = state;
        this.rpc = rpc;
        this.stateExecutor = stateExecutor;
        this.suspicion = suspicion;
        this.nanos = nanos;
    }

    public RingState state() {
        return state;
    }

    /** Called on the state executor whenever the predecessor or successor list changed. */
    public void onChange(Consumer<RingState> listener) {
        this.onChange = listener;
    }

    /**
     * Join through a member: look up this node's id from {@code member}, then
     * take the owner (this node's successor-to-be) and its successor list.
     * Fails if the member cannot be reached or the id is taken.
     */
    public CompletableFuture<Void> join(NodeRef member) {
        return new Lookup(state.self().id()).step(member).thenCompose(found -> {
            NodeRef succ = found.owner();
            if (succ.equals(state.self())) {
                throw new CompletionException(new IllegalStateException("no ring member answered the join"));
            }
            if (succ.id().equals(state.self().id())) {
                throw new CompletionException(new IllegalStateException("node id " + succ.id().toString(16)
                        + " is already taken by " + succ.overlay()));
            }
            List<NodeRef> candidates = new ArrayList<>();
            candidates.add(succ);
            candidates.addAll(found.successors());
            return joinVia(candidates, 0);
        });
    }

    /**
     * Rejoin after losing every successor: the first of the former
     * successors that answers becomes the successor again (stabilize then
     * corrects it). Fails if none answers.
     */
    public CompletableFuture<Void> rejoin(List<NodeRef> formerSuccessors) {
        return onState(() -> joinVia(formerSuccessors, 0));
    }

    /** The answer's owner may have died since; its successors stand in, as stabilize would find. */
    private CompletableFuture<Void> joinVia(List<NodeRef> candidates, int i) {
        if (i >= candidates.size() || candidates.get(i).equals(state.self())) {
            return CompletableFuture.failedFuture(new IllegalStateException("no successor answered the join"));
        }
        NodeRef succ = candidates.get(i);
        return rpc.neighbours(succ).handleAsync((nb, e) -> {
            if (e != null) {
                return joinVia(candidates, i + 1);
            }
            state.join(succ, nb.successors());
            changed();
            return CompletableFuture.<Void>completedFuture(null);
        }, stateExecutor).thenCompose(f -> f);
    }

    /** Stabilize once; never fails (a dead successor is dropped instead). */
    public CompletableFuture<Void> stabilize() {
        return onState(() -> {
            NodeRef succ = state.successor();
            return neighboursOf(succ).handleAsync((nb, error) -> {
                if (error != null) {
                    if (dead(succ, error)) {
                        state.forget(succ);
                        changed();
                    }
                    return CompletableFuture.<Void>completedFuture(null);
                }
                answered(succ);
                Optional<NodeRef> p = nb.predecessor();
                if (p.isPresent() && state.shouldAdopt(p.get())) {
                    NodeRef candidate = p.get();
                    return neighboursOf(candidate).handleAsync((cnb, cerr) -> {
                        if (cerr == null) {
                            adopt(candidate, cnb.successors());
                        } else {
                            adopt(succ, nb.successors());
                        }
                        return notifySuccessor();
                    }, stateExecutor).thenCompose(f -> f);
                }
                adopt(succ, nb.successors());
                if (state.successorAnswered(succ, nb)) {
                    LOG.debug("chord node {}: successor {} {} it as predecessor (it names {})", selfId(), succ,
                            state.successorConfirmed() ? "confirms" : "no longer confirms",
                            nb.predecessor().map(Object::toString).orElse("none"));
                    changed();
                }
                return notifySuccessor();
            }, stateExecutor).thenCompose(f -> f);
        });
    }

    private void adopt(NodeRef succ, List<NodeRef> list) {
        // The successor's list as seen from here: if it is this node's own list echoed back, fine.
        if (state.adoptSuccessor(succ, list)) {
            changed();
        }
    }

    /**
     * From now until {@link #claim}, this node does not notify its
     * successor: the ring does not learn of it and routes no key to it,
     * while it looks keys up through the ring as any client does.
     */
    void holdClaim() {
        claiming = false;
    }

    /** Notifies the successor again from the next stabilize on, which makes it hand over this node's range. */
    void claim() {
        claiming = true;
    }

    private CompletableFuture<Void> notifySuccessor() {
        NodeRef succ = state.successor();
        if (succ.equals(state.self()) || !claiming) {
            return CompletableFuture.completedFuture(null);
        }
        return rpc.notify(succ, state.self()).handleAsync((v, e) -> {
            if (e != null && dead(succ, e)) {
                state.forget(succ);
                changed();
            }
            return null;
        }, stateExecutor);
    }

    /**
     * Rectify, on being notified by {@code candidate}: adopt it as
     * predecessor when it is closer than the current one, or when the current
     * one does not answer a ping.
     */
    public CompletableFuture<Void> notified(NodeRef candidate) {
        return onState(() -> {
            if (!state.rectifyNeedsLivenessCheck(candidate)) {
                if (state.rectify(candidate, true)) {
                    changed();
                }
                return CompletableFuture.completedFuture(null);
            }
            NodeRef old = state.predecessor().orElseThrow();
            return rpc.ping(old).handleAsync((v, e) -> {
                boolean alive = e == null || !dead(old, e);
                if (state.predecessor().map(old::equals).orElse(false) && state.rectify(candidate, alive)) {
                    changed();
                }
                return null;
            }, stateExecutor);
        });
    }

    /**
     * Asks the predecessor for its neighbours: forgets it if it does not
     * answer, so ownership follows a crash, and records whether it names
     * this node as its successor ({@link RingState#predecessorAnswered}).
     */
    public CompletableFuture<Void> checkPredecessor() {
        return onState(() -> {
            Optional<NodeRef> pred = state.predecessor();
            if (pred.isEmpty() || pred.get().equals(state.self())) {
                return CompletableFuture.completedFuture(null);
            }
            return rpc.neighbours(pred.get()).handleAsync((nb, e) -> {
                if (!state.predecessor().equals(pred)) {
                    return null;
                }
                if (e != null) {
                    if (dead(pred.get(), e)) {
                        state.predecessorFailed();
                        changed();
                    }
                } else {
                    answered(pred.get());
                    if (state.predecessorAnswered(pred.get(), nb)) {
                        LOG.debug("chord node {}: predecessor {} {} it as successor", selfId(),
                                pred.get(), state.predecessorConfirmed() ? "confirms" : "no longer confirms");
                        changed();
                    }
                }
                return null;
            }, stateExecutor);
        });
    }

    /** Fix-fingers: refreshes the next stale finger (and the later ones its answer covers). */
    public CompletableFuture<Void> fixFinger() {
        return onState(() -> {
            int i = state.nextFingerToFix();
            BigInteger start = state.space().fingerStart(state.self().id(), i);
            return lookup(start).handleAsync((found, e) -> {
                if (e == null) {
                    state.setFinger(i, found.owner());
                }
                return null;
            }, stateExecutor);
        });
    }

    /** Fills every finger: about log2 N lookups thanks to {@link RingState#setFinger}'s covering rule. */
    public CompletableFuture<Void> fixAllFingers() {
        return onState(() -> fixFrom(0));
    }

    private CompletableFuture<Void> fixFrom(int i) {
        if (i >= state.space().bits()) {
            return CompletableFuture.completedFuture(null);
        }
        BigInteger start = state.space().fingerStart(state.self().id(), i);
        return lookup(start).handleAsync((found, e) -> {
            int next = e == null ? state.setFinger(i, found.owner()) : i + 1;
            return next <= i ? CompletableFuture.<Void>completedFuture(null) : fixFrom(next);
        }, stateExecutor).thenCompose(f -> f);
    }

    /** Finds the owner of {@code id}, starting at this node, counting remote nodes asked. */
    public CompletableFuture<LookupResult> lookup(BigInteger id) {
        return onState(() -> new Lookup(id).step(state.self()));
    }

    /** The state of one iterative lookup: where it is, who answered last, who did not answer. */
    private final class Lookup {
        final BigInteger id;
        final Set<NodeRef> dead = new HashSet<>();
        int hops;
        NodeRef previous;
        List<NodeRef> previousSuccessors = List.of();

        Lookup(BigInteger id) {
            this.id = id;
        }

        CompletableFuture<LookupResult> step(NodeRef at) {
            if (hops > MAX_HOPS || dead.size() > MAX_DEAD) {
                return CompletableFuture.failedFuture(new IllegalStateException("lookup of " + id.toString(16)
                        + " gave up after " + hops + " hops and " + dead.size() + " silent nodes"));
            }
            boolean local = at.equals(state.self());
            CompletableFuture<HopReply> ask = local ? CompletableFuture.completedFuture(state.nextHop(id))
                    : rpc.nextHop(at, id);
            if (!local) {
                hops++;
            }
            return ask.handleAsync((reply, error) -> {
                if (error != null) {
                    dead.add(at);
                    if (RingMaintenance.this.dead(at, error)) {
                        state.forget(at);
                        // It may have been a neighbour: what this node serves and replicates to follows.
                        changed();
                    }
                    return detour(unwrap(error));
                }
                if (!local) {
                    answered(at);
                }
                if (reply.done()) {
                    if (!dead.contains(reply.node())) {
                        return CompletableFuture.completedFuture(new LookupResult(reply.node(),
                                reply.successors().stream().filter(n -> !dead.contains(n)).toList(), hops));
                    }
                    previous = at;
                    previousSuccessors = reply.successors();
                    return detour(new IllegalStateException("the owner found is dead"));
                }
                previous = at;
                previousSuccessors = reply.successors();
                if (reply.node().equals(at) || dead.contains(reply.node())) {
                    return detour(new IllegalStateException(at + " offered no live next hop"));
                }
                return step(reply.node());
            }, stateExecutor).thenCompose(f -> f);
        }

        /**
         * The next hop did not answer: continue from the last answering node's
         * successor list, which either holds a node still closer to the key or
         * the key's live owner (the first live successor past the key).
         */
        CompletableFuture<LookupResult> detour(Throwable why) {
            if (previous == null) {
                return CompletableFuture.failedFuture(why);
            }
            IdSpace space = state.space();
            NodeRef closer = null;
            List<NodeRef> live = previousSuccessors.stream().filter(n -> !dead.contains(n)).toList();
            for (int i = 0; i < live.size(); i++) {
                NodeRef n = live.get(i);
                if (space.betweenOpen(previous.id(), n.id(), id) && !n.id().equals(id)) {
                    closer = n;
                } else {
                    if (closer != null) {
                        break;
                    }
                    return CompletableFuture.completedFuture(new LookupResult(n, live.subList(i + 1, live.size()),
                            hops));
                }
            }
            if (closer == null) {
                return CompletableFuture.failedFuture(why);
            }
            return step(closer);
        }
    }

    private CompletableFuture<Neighbours> neighboursOf(NodeRef node) {
        return node.equals(state.self()) ? CompletableFuture.completedFuture(state.neighbours()) : rpc.neighbours(node);
    }

    private <T> CompletableFuture<T> onState(Supplier<CompletableFuture<T>> action) {
        try {
            return CompletableFuture.supplyAsync(action, stateExecutor).thenCompose(f -> f);
        } catch (RejectedExecutionException e) {
            // The node's owner thread has stopped: the node is closed.
            return CompletableFuture.failedFuture(new IllegalStateException("chord node is closed", e));
        }
    }

    /**
     * Whether {@code node}, whose call just failed, is to be treated as dead:
     * at once when it refused or closed, once its {@link TimeoutSuspicion}
     * condemns it otherwise. A starved machine times calls out to live nodes; a
     * node forgotten for that leaves the ring short of a member and its range
     * served twice, which is worse than waiting a few seconds longer for a
     * node that is really gone but still holds its port. A timeout while this
     * node itself lags is excused by the suspicion, and a call this node held
     * back unsent ({@link RingRpc#heldBack}) says nothing of the peer at all.
     */
    private boolean dead(NodeRef node, Throwable error) {
        if (rpc.heldBack(error)) {
            return false;
        }
        if (!rpc.inconclusive(error)) {
            suspicion.forgotten(node);
            if (knows(node)) {
                // The reason as text: a Throwable as the last argument would print its stack trace instead.
                LOG.info("chord node {} takes {} for dead: it refused ({})", selfId(), node, reason(error));
            }
            return true;
        }
        boolean dead = suspicion.timedOut(node, nanos.getAsLong());
        if (dead) {
            // Counted and told whether or not the node was a neighbour: silence is the verdict that can be wrong.
            writtenOff.incrementAndGet();
            LOG.info("chord node {} writes {} off: its calls timed out for longer than the suspicion window"
                    + " while this node kept up ({} written off so far)", selfId(), node, writtenOff.get());
        }
        return dead;
    }

    /** Whether {@code node} is this node's predecessor, a successor or a finger. */
    private boolean knows(NodeRef node) {
        return state.predecessor().map(node::equals).orElse(false) || state.knownNodes().contains(node);
    }

    /**
     * How many peers this node has taken for dead because their calls kept
     * timing out (not because they refused): the verdicts that may be wrong.
     * Read by any thread.
     */
    public long peersWrittenOff() {
        return writtenOff.get();
    }

    /** This node's id as its DEBUG lines name it. */
    private String selfId() {
        return state.self().id().toString(16);
    }

    private void answered(NodeRef node) {
        suspicion.answered(node);
    }

    private void changed() {
        onChange.accept(state);
    }

    /** One line for a log: the exception's message, or its class when it has none. */
    static String reason(Throwable error) {
        Throwable cause = unwrap(error);
        return cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }
}
