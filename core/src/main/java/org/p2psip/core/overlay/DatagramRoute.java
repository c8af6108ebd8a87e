package org.p2psip.core.overlay;

import java.net.InetSocketAddress;

/**
 * The peer address of the frame passing through a UDP overlay pipeline right
 * now. Only the channel's event loop touches it, and only while one frame
 * passes synchronously between {@link DatagramFraming} and
 * {@link DatagramAddressing}, which is why a plain field is enough.
 */
final class DatagramRoute {
    InetSocketAddress inboundSender;
    InetSocketAddress outboundPeer;
}
