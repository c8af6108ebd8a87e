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
 * The nodes behind the balancer and which of them are up. The health
 * checker writes (on its one event-loop thread); routers on any thread
 * read an immutable snapshot of the live list, so routing takes no lock.
 * Every node starts up: the balancer forwards from its first packet and
 * the first failed probes take a dead node out.
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
    private volatile List<Node> live;

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
        this.live = all;
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

    public synchronized boolean isUp(int index) {
        return up[index];
    }

    /** @return whether this changed the node's state */
    synchronized boolean markUp(int index) {
        return set(index, true);
    }

    /** @return whether this changed the node's state */
    synchronized boolean markDown(int index) {
        return set(index, false);
    }

    private boolean set(int index, boolean state) {
        if (up[index] == state) {
            return false;
        }
        up[index] = state;
        List<Node> now = new ArrayList<>();
        for (Node n : all) {
            if (up[n.index()]) {
                now.add(n);
            }
        }
        live = List.copyOf(now);
        return true;
    }
}
