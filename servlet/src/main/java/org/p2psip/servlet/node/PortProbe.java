package org.p2psip.servlet.node;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Checks that a SIP port is free on both UDP and TCP before JAIN-SIP binds
 * it, so a busy port is reported in one line instead of as a stack trace
 * from deep inside the stack; and finds a port free on both for tests.
 */
final class PortProbe {

    private static final int ATTEMPTS = 50;

    private PortProbe() {
    }

    /** @throws NodeStartException naming the transport whose port is taken */
    static void requireFree(InetAddress address, int port) throws NodeStartException {
        try (DatagramSocket udp = new DatagramSocket(null)) {
            udp.setReuseAddress(false);
            udp.bind(new InetSocketAddress(address, port));
        } catch (IOException e) {
            throw new NodeStartException("UDP port " + address.getHostAddress() + ":" + port + " is already in use");
        }
        try (ServerSocket tcp = new ServerSocket()) {
            tcp.setReuseAddress(true);
            tcp.bind(new InetSocketAddress(address, port));
        } catch (IOException e) {
            throw new NodeStartException("TCP port " + address.getHostAddress() + ":" + port + " is already in use");
        }
    }

    /** A port that is free on both UDP and TCP at {@code address} right now. */
    static int findFree(InetAddress address) throws NodeStartException {
        for (int i = 0; i < ATTEMPTS; i++) {
            int port;
            try (ServerSocket tcp = new ServerSocket()) {
                tcp.setReuseAddress(true);
                tcp.bind(new InetSocketAddress(address, 0));
                port = tcp.getLocalPort();
            } catch (IOException e) {
                throw new NodeStartException("cannot bind " + address.getHostAddress() + ": " + e.getMessage());
            }
            try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(address, port))) {
                return udp.getLocalPort();
            } catch (IOException e) {
                // Taken on UDP; try another.
            }
        }
        throw new NodeStartException("no port free on both UDP and TCP at " + address.getHostAddress());
    }
}
