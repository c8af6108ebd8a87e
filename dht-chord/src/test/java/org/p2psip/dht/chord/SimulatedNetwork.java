package org.p2psip.dht.chord;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;

import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.TimeoutSuspicion;

/**
 * An in-memory network of Chord nodes for tests and the lookup simulation:
 * every message is a direct call that completes at once, so a run is a
 * deterministic function of the calls made (and of the seed that chose
 * them). A crashed node answers nothing; its callers see a failed future
 * that is a refusal. A slow node's callers see a timeout instead.
 */
public final class SimulatedNetwork implements RingRpc {

    private final IdSpace space;
    private final int successorListLength;
    private final Map<HostPort, RingMaintenance> nodes = new LinkedHashMap<>();
    private final Map<HostPort, RingMaintenance> crashed = new LinkedHashMap<>();
    private final Set<HostPort> slow = new HashSet<>();
    private final Set<HostPort> held = new HashSet<>();
    private long messages;

    public SimulatedNetwork(IdSpace space, int successorListLength) {
        this.space = space;
        this.successorListLength = successorListLength;
    }

    /** The address of simulated node number {@code n}. */
    public static HostPort address(int n) {
        return new HostPort("10." + (n >> 16 & 0xFF) + "." + (n >> 8 & 0xFF) + "." + (n & 0xFF), 4000);
    }

    /** Adds a node that is not yet part of any ring (alone on its own). */
    public RingMaintenance add(BigInteger id, HostPort address) {
        return add(new RingMaintenance(new RingState(space, new NodeRef(id, address), successorListLength), this,
                Runnable::run));
    }

    /** Adds a node that judges silent peers by {@code suspicion}, on the clock {@code nanos}. */
    public RingMaintenance add(BigInteger id, HostPort address, TimeoutSuspicion<NodeRef> suspicion,
                               LongSupplier nanos) {
        return add(new RingMaintenance(new RingState(space, new NodeRef(id, address), successorListLength), this,
                Runnable::run, suspicion, nanos));
    }

    private RingMaintenance add(RingMaintenance m) {
        nodes.put(m.state().self().overlay(), m);
        return m;
    }

    /**
     * The node stays a member but its answers come too late ({@code slow}) or
     * in time again: its callers see timeouts, which {@link #inconclusive}
     * tells from a crashed node's refusals.
     */
    public void slow(HostPort address, boolean slow) {
        if (slow) {
            this.slow.add(address);
        } else {
            this.slow.remove(address);
        }
    }

    @Override
    public boolean inconclusive(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        return cause instanceof TimedOut;
    }

    /** The caller's calls to the node are held back unsent, as a full window holds them. */
    public void heldBack(HostPort address, boolean held) {
        if (held) {
            this.held.add(address);
        } else {
            this.held.remove(address);
        }
    }

    @Override
    public boolean heldBack(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        return cause instanceof HeldBack;
    }

    /** What the caller of a held-back node sees. */
    private static final class HeldBack extends RuntimeException {
        HeldBack(HostPort node) {
            super("calls to " + node + " held back", null, false, false);
        }
    }

    /** What a slow node's callers see. */
    private static final class TimedOut extends RuntimeException {
        TimedOut(HostPort node) {
            super(node + " timed out", null, false, false);
        }
    }

    public RingMaintenance node(HostPort address) {
        return nodes.get(address);
    }

    public Collection<RingMaintenance> live() {
        return nodes.values();
    }

    public List<RingState> liveStates() {
        return nodes.values().stream().map(RingMaintenance::state).toList();
    }

    /** The node stops answering, with no goodbye. */
    public void crash(HostPort address) {
        RingMaintenance m = nodes.remove(address);
        if (m != null) {
            crashed.put(address, m);
        }
    }

    public long messages() {
        return messages;
    }

    /** One round: every live node stabilizes, then every live node checks its predecessor. */
    public void stabilizeRound() {
        for (RingMaintenance m : new ArrayList<>(nodes.values())) {
            if (nodes.containsKey(m.state().self().overlay())) {
                m.stabilize().join();
            }
        }
        for (RingMaintenance m : new ArrayList<>(nodes.values())) {
            if (nodes.containsKey(m.state().self().overlay())) {
                m.checkPredecessor().join();
            }
        }
    }

    /**
     * Puts the given nodes straight into the ideal ring — successor lists,
     * predecessors and fingers as stabilization would leave them — so a large
     * simulation need not replay thousands of joins to begin.
     */
    public void formIdealRing() {
        TreeMap<BigInteger, NodeRef> sorted = new TreeMap<>();
        nodes.values().forEach(m -> sorted.put(m.state().self().id(), m.state().self()));
        for (RingMaintenance m : nodes.values()) {
            RingState s = m.state();
            List<NodeRef> succ = RingInvariants.idealSuccessors(sorted, s.self(), successorListLength);
            s.adoptSuccessor(succ.get(0), succ.subList(1, succ.size()));
            if (sorted.size() > 1) {
                s.rectify(RingInvariants.idealPredecessor(sorted, s.self()), false);
            }
            int i = 0;
            while (i < space.bits()) {
                NodeRef owner = RingInvariants.owner(sorted, space.fingerStart(s.self().id(), i));
                int next = s.setFinger(i, owner);
                if (next <= i) {
                    break;
                }
                i = next;
            }
        }
    }

    private RingState at(NodeRef node) {
        messages++;
        RingMaintenance m = nodes.get(node.overlay());
        return m == null || slow.contains(node.overlay()) || held.contains(node.overlay()) ? null : m.state();
    }

    private <T> CompletableFuture<T> unanswered(NodeRef node) {
        if (held.contains(node.overlay())) {
            return CompletableFuture.failedFuture(new HeldBack(node.overlay()));
        }
        return CompletableFuture.failedFuture(slow.contains(node.overlay()) && nodes.containsKey(node.overlay())
                ? new TimedOut(node.overlay())
                : new IllegalStateException(node.overlay() + " does not answer"));
    }

    @Override
    public CompletableFuture<HopReply> nextHop(NodeRef node, BigInteger id) {
        RingState s = at(node);
        return s == null ? unanswered(node) : CompletableFuture.completedFuture(s.nextHop(id));
    }

    @Override
    public CompletableFuture<Neighbours> neighbours(NodeRef node) {
        RingState s = at(node);
        return s == null ? unanswered(node) : CompletableFuture.completedFuture(s.neighbours());
    }

    @Override
    public CompletableFuture<Void> notify(NodeRef node, NodeRef candidate) {
        messages++;
        RingMaintenance m = nodes.get(node.overlay());
        return m == null || slow.contains(node.overlay()) || held.contains(node.overlay()) ? unanswered(node)
                : m.notified(candidate);
    }

    @Override
    public CompletableFuture<Void> ping(NodeRef node) {
        RingState s = at(node);
        return s == null ? unanswered(node) : CompletableFuture.completedFuture(null);
    }
}
