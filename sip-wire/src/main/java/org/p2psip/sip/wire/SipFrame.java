package org.p2psip.sip.wire;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * One whole SIP message as it arrived: the bytes of a datagram, or one
 * message cut out of a TCP stream by its Content-Length (RFC 3261 §18.3).
 * The bytes are a private copy, so a frame can cross threads freely.
 *
 * @param bytes      the message, exactly as received
 * @param sender     the transport address it came from
 * @param transport  UDP, TCP or TLS
 * @param connection for TCP and TLS, the id the listener gave the connection; 0 for UDP
 */
public record SipFrame(byte[] bytes, InetSocketAddress sender, Transport transport, long connection) {

    public SipFrame {
        Objects.requireNonNull(bytes, "bytes");
        Objects.requireNonNull(sender, "sender");
        Objects.requireNonNull(transport, "transport");
    }
}
