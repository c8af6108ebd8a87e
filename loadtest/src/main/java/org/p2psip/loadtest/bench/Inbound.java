package org.p2psip.loadtest.bench;

import java.net.InetSocketAddress;

/**
 * A parsed message and where it came from.
 *
 * @param message the message
 * @param sender  the peer's address (the datagram's source, or the connection's remote end)
 */
public record Inbound(SipMessage message, InetSocketAddress sender) {
}
