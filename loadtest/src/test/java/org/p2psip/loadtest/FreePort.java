package org.p2psip.loadtest;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Finds a port on 127.0.0.1 that is free for both UDP and TCP, as {@code --sip} needs. */
final class FreePort {

    private FreePort() {
    }

    static int udpAndTcp() {
        for (int attempt = 0; attempt < 50; attempt++) {
            try (ServerSocket tcp = new ServerSocket()) {
                tcp.setReuseAddress(false);
                tcp.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                int port = tcp.getLocalPort();
                try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))) {
                    return port;
                } catch (IOException busyForUdp) {
                    // try another
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot bind on 127.0.0.1", e);
            }
        }
        throw new IllegalStateException("no port free for both UDP and TCP on 127.0.0.1");
    }

    /**
     * The first of {@code count} consecutive ports on 127.0.0.1 that are all
     * free for UDP and TCP right now, for commands such as {@code cluster}
     * that lay their processes out on neighbouring ports.
     */
    static int consecutive(int count) {
        for (int attempt = 0; attempt < 100; attempt++) {
            int base = udpAndTcp();
            if (base + count > 65535) {
                continue;
            }
            boolean free = true;
            for (int port = base + 1; port < base + count && free; port++) {
                free = isFree(port);
            }
            if (free) {
                return base;
            }
        }
        throw new IllegalStateException("no " + count + " consecutive free ports on 127.0.0.1");
    }

    private static boolean isFree(int port) {
        try (ServerSocket tcp = new ServerSocket()) {
            tcp.setReuseAddress(false);
            tcp.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))) {
                return true;
            }
        } catch (IOException e) {
            return false;
        }
    }
}
