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
}
