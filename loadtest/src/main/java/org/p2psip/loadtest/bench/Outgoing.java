package org.p2psip.loadtest.bench;

import java.net.InetSocketAddress;

/**
 * One message to send.
 *
 * @param method      the request method, for bookkeeping
 * @param branch      the top Via branch, which names the client transaction (§17.1.3)
 * @param bytes       the message on the wire
 * @param destination the next hop; null means the run's target
 */
public record Outgoing(String method, String branch, byte[] bytes, InetSocketAddress destination) {
}
