package org.p2psip.loadtest.scale;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Finds runs of consecutive ports on 127.0.0.1 free for both UDP and TCP,
 * as {@code p2psip cluster} lays its balancer and nodes out on neighbouring
 * ports. Free now is not free later: another process may take a port
 * between this check and the cluster's bind, which then fails with a
 * one-line error the scale run reports.
 */
final class LocalPorts {

    private static final int LOW = 20_000;
    private static final int HIGH = 60_000;

    private LocalPorts() {
    }

    /** The first of {@code count} consecutive free ports, none of them in [{@code avoidFrom}, {@code avoidTo}). */
    static int consecutive(int count, int avoidFrom, int avoidTo) {
        for (int attempt = 0; attempt < 200; attempt++) {
            // Random starts rather than the ephemeral range: the kernel hands those out to clients at any time.
            int base = ThreadLocalRandom.current().nextInt(LOW, HIGH - count);
            if (base < avoidTo && base + count > avoidFrom) {
                continue;
            }
            boolean free = true;
            for (int p = base; p < base + count && free; p++) {
                free = isFree(p);
            }
            if (free) {
                return base;
            }
        }
        throw new IllegalStateException("no " + count + " consecutive free ports on 127.0.0.1");
    }

    static boolean isFree(int port) {
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (ServerSocket tcp = new ServerSocket()) {
            tcp.setReuseAddress(false);
            tcp.bind(new InetSocketAddress(lo, port));
            try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(lo, port))) {
                return true;
            }
        } catch (IOException e) {
            return false;
        }
    }
}
