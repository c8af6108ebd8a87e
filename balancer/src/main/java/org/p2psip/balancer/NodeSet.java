package org.p2psip.balancer;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.p2psip.core.net.HostPort;

/**
 * The nodes behind the balancer, which of them are up, and which of those
 * are ready for new work. The health checker writes (on its one event-loop
 * thread); routers on any thread read immutable snapshots of the lists, so
 * routing takes no lock. Every node starts up and ready: the balancer
 * forwards from its first packet and the first failed probes take a dead
 * node out.
 *
 * <p>Up and ready are apart because a warming node (issue 33) is alive —
 * it answers its probes, finishes the transactions it holds, its
 * responses flow — but says it is not ready ({@code 503} with
 * {@code P2psip-Ready: no}): it must not be taken for dead, nor given
 * new requests.
 */
public final class NodeSet {

    /**
     * One node.
     *
     * @param index   its position on the command line
     * @param address as configured
     * @param socket  resolved, where datagrams go
     * @param seed    its consistent-hashing identity, from the address
     */
    public record Node(int index, HostPort address, InetSocketAddress socket, long seed) {

        public Node {
            Objects.requireNonNull(address, "address");
            Objects.requireNonNull(socket, "socket");
        }
    }

    private final List<Node> all;
    private final Map<InetSocketAddress, Node> byAddress = new HashMap<>();
    private final boolean[] up;
    private final boolean[] ready;
    private volatile List<Node> live;
    private volatile List<Node> takingNew;

    public NodeSet(List<HostPort> addresses) {
        if (addresses.isEmpty()) {
            throw new IllegalArgumentException("at least one node is needed");
        }
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < addresses.size(); i++) {
            HostPort a = addresses.get(i);
            InetSocketAddress socket = new InetSocketAddress(a.host(), a.port());
            if (socket.isUnresolved()) {
                throw new IllegalArgumentException("cannot resolve node host '" + a.host() + "'");
            }
            nodes.add(new Node(i, a, socket, Fnv.hash(a.toString())));
        }
        this.all = List.copyOf(nodes);
        for (Node n : all) {
            byAddress.putIfAbsent(n.socket(), n);
        }
        this.up = new boolean[all.size()];
        java.util.Arrays.fill(up, true);
        this.ready = new boolean[all.size()];
        java.util.Arrays.fill(ready, true);
        this.live = all;
        this.takingNew = all;
    }

    public List<Node> all() {
        return all;
    }

    /** The node whose SIP address is {@code socket}: who sent a response. */
    public Optional<Node> at(InetSocketAddress socket) {
        return Optional.ofNullable(byAddress.get(socket));
    }

    /** The nodes currently up, in configuration order. */
    public List<Node> live() {
        return live;
    }

    /** The nodes up and ready, in configuration order: those new requests may go to. */
    public List<Node> ready() {
        return takingNew;
    }

    public synchronized boolean isUp(int index) {
        return up[index];
    }

    /** Whether the node's last word on it was that it is ready (its state while down is what it said before). */
    public synchronized boolean isReady(int index) {
        return ready[index];
    }

    /** Whether new requests may go to the node: it is up and ready. */
    public synchronized boolean takesNewRequests(int index) {
        return up[index] && ready[index];
    }

    /** @return whether this changed the node's state */
    synchronized boolean markUp(int index) {
        return set(up, index, true);
    }

    /** @return whether this changed the node's state */
    synchronized boolean markDown(int index) {
        return set(up, index, false);
    }

    /** @return whether this changed the node's readiness */
    synchronized boolean markReady(int index, boolean state) {
        return set(ready, index, state);
    }

    private boolean set(boolean[] flags, int index, boolean state) {
        if (flags[index] == state) {
            return false;
        }
        flags[index] = state;
        List<Node> nowLive = new ArrayList<>();
        List<Node> nowReady = new ArrayList<>();
        for (Node n : all) {
            if (up[n.index()]) {
                nowLive.add(n);
                if (ready[n.index()]) {
                    nowReady.add(n);
                }
            }
        }
        live = List.copyOf(nowLive);
        takingNew = List.copyOf(nowReady);
        return true;
    }
}
