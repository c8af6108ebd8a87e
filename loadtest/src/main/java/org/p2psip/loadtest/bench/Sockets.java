package org.p2psip.loadtest.bench;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.bootstrap.Bootstrap;

/** Address choices shared by the lanes and the UAS. */
final class Sockets {

    /** Kernel socket buffers: large, so a burst of answers is not dropped before the event loop reads it. */
    static final int BUFFER_BYTES = 4 * 1024 * 1024;

    /** Largest datagram read: a response with many contacts still fits. */
    static final int MAX_DATAGRAM = 16 * 1024;

    private Sockets() {
    }

    /** The target as a socket address, or an error naming it. */
    static InetSocketAddress resolve(String host, int port) {
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new BenchException("unknown host " + host);
        }
    }

    /**
     * The local address to bind and to write in Via and Contact: the one
     * given, else the one the routing table would use to reach the target
     * (a connected UDP socket sends nothing but learns its source address).
     */
    static InetAddress local(String given, InetSocketAddress target) {
        if (given != null) {
            try {
                return InetAddress.getByName(given);
            } catch (UnknownHostException e) {
                throw new BenchException("unknown local host " + given);
            }
        }
        if (target.getAddress().isLoopbackAddress()) {
            return target.getAddress();
        }
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(target);
            InetAddress a = probe.getLocalAddress();
            return a == null || a.isAnyLocalAddress() ? InetAddress.getLoopbackAddress() : a;
        } catch (IOException e) {
            throw new BenchException("no route to " + target + ": " + e.getMessage());
        }
    }

    /** host:port as written in a SIP URI or Via. */
    static String hostPort(InetAddress host, int port) {
        String h = host.getHostAddress();
        return (h.indexOf(':') >= 0 ? "[" + h + "]" : h) + ":" + port;
    }

    static Bootstrap udpOptions(Bootstrap b) {
        return b.option(ChannelOption.SO_RCVBUF, BUFFER_BYTES)
                .option(ChannelOption.SO_SNDBUF, BUFFER_BYTES)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(MAX_DATAGRAM));
    }
}
