package org.p2psip.balancer;

import java.util.function.IntConsumer;

import io.netty.channel.EventLoop;

/**
 * How {@link HealthChecker} learns that nothing listens on a node's port
 * any more: a process that died leaves its host to answer each datagram to
 * that port with ICMP port unreachable. {@link #NONE} does not look, and a
 * dead node is noticed by its silence alone; {@link ConnectedUdpPortWatch}
 * looks.
 *
 * <p>Called on one event loop, and calls back on it.
 */
public interface ClosedPortWatch {

    /** Nothing is watched: a closed port counts as silence. */
    ClosedPortWatch NONE = new ClosedPortWatch() {
        @Override
        public void open(EventLoop loop, NodeSet nodes, IntConsumer refused) {
        }

        @Override
        public void ping(NodeSet.Node node) {
        }

        @Override
        public void close() {
        }
    };

    /**
     * Starts watching {@code nodes} from {@code loop}; {@code refused} takes
     * the index of a node whose port turned out closed, on {@code loop}.
     */
    void open(EventLoop loop, NodeSet nodes, IntConsumer refused);

    /** Sends {@code node} a datagram that its port, if closed, refuses. */
    void ping(NodeSet.Node node);

    /** Closes what {@link #open} opened. */
    void close();
}
