package org.p2psip.core.testing;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Ports on 127.0.0.1 free for both UDP and TCP, for tests that start
 * servers and processes on ports of their own choosing.
 */
public final class FreePorts {

    private FreePorts() {
    }

    /**
     * Below Linux's ephemeral range (32768–60999): a port the kernel hands
     * out to outgoing connections — sixteen nodes open plenty — could be
     * taken between this check and the node's bind ("Address already in
     * use" in one CI run).
     */
    private static final int LOWEST = 20_000;
    private static final int BELOW_EPHEMERAL = 32_768;

    /** Ports already handed out: a node started a moment ago may not have bound its port yet. */
    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public static int udpAndTcp() {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 500; attempt++) {
            int port = random.nextInt(LOWEST, BELOW_EPHEMERAL);
            if (!HANDED_OUT.contains(port) && isFree(port) && HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no port free for both UDP and TCP on 127.0.0.1 in " + LOWEST + "-"
                + (BELOW_EPHEMERAL - 1));
    }

    /**
     * The first of {@code count} consecutive ports on 127.0.0.1 that are all
     * free for UDP and TCP right now, for commands such as {@code cluster}
     * that lay their processes out on neighbouring ports.
     */
    public static int consecutive(int count) {
        for (int attempt = 0; attempt < 100; attempt++) {
            int base = udpAndTcp();
            if (base + count > BELOW_EPHEMERAL) {
                continue;
            }
            boolean free = true;
            for (int port = base + 1; port < base + count && free; port++) {
                free = !HANDED_OUT.contains(port) && isFree(port);
            }
            if (free) {
                for (int port = base + 1; port < base + count; port++) {
                    HANDED_OUT.add(port);
                }
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
