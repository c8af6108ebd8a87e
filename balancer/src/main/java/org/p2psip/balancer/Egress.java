package org.p2psip.balancer;

import java.net.InetSocketAddress;

import io.netty.buffer.ByteBuf;

/**
 * Where the router's output goes: datagrams to nodes, and responses to
 * clients on the transport they came in on. An interface so the router can
 * be tested in an {@code EmbeddedChannel} without sockets. Both methods
 * take ownership of the buffer.
 */
public interface Egress {

    /** Sends a request to a node over UDP, from the balancer's node-side socket. */
    void toNode(InetSocketAddress node, ByteBuf message);

    /** Sends a node's request on to a user agent over UDP, from the balancer's public socket. */
    void toAgent(InetSocketAddress agent, ByteBuf message);

    /** Sends a response to a client: a datagram, or a write on its TCP connection (RFC 3261 §18.2.2). */
    void toClient(ReturnAddress client, ByteBuf message);

    /**
     * Sends a request down a client's flow (RFC 5626 §5.3): a write on its
     * TCP or TLS connection {@code connection}.
     *
     * @return false, the buffer released, when that connection is closed
     */
    boolean toFlow(long connection, ByteBuf message);
}
