package org.p2psip.loadtest.connections;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP server on 127.0.0.1 standing in for a node: it closes each
 * connection {@code closeAfterMillis} after accepting it (0: never), and
 * closes at once a connection from a source that already holds
 * {@code perSourceCap} (a per-source connection cap), and keeps what each
 * connection sent.
 */
final class ClosingServer implements AutoCloseable {

    private final ServerSocket server;
    private final long closeAfterMillis;
    private final int perSourceCap;
    private final ScheduledExecutorService closer = Executors.newSingleThreadScheduledExecutor();
    private final Map<InetAddress, AtomicInteger> accepted = new ConcurrentHashMap<>();
    private final Map<InetAddress, AtomicInteger> held = new ConcurrentHashMap<>();
    private final List<ByteArrayOutputStream> received = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    ClosingServer(long closeAfterMillis, int perSourceCap) throws IOException {
        this.closeAfterMillis = closeAfterMillis;
        this.perSourceCap = perSourceCap;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1_000);
        acceptor = new Thread(this::accept, "closing-server");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    InetSocketAddress address() {
        return (InetSocketAddress) server.getLocalSocketAddress();
    }

    /** Connections accepted (and kept) per source address. */
    Map<InetAddress, Integer> acceptedBySource() {
        Map<InetAddress, Integer> out = new ConcurrentHashMap<>();
        accepted.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    List<String> received() {
        return received.stream().map(b -> {
            synchronized (b) {
                return b.toString(StandardCharsets.US_ASCII);
            }
        }).toList();
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return;
            }
            InetAddress from = s.getInetAddress();
            AtomicInteger n = held.computeIfAbsent(from, k -> new AtomicInteger());
            if (perSourceCap > 0 && n.get() >= perSourceCap) {
                quietClose(s);
                continue;
            }
            n.incrementAndGet();
            accepted.computeIfAbsent(from, k -> new AtomicInteger()).incrementAndGet();
            sockets.add(s);
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            received.add(got);
            Thread reader = new Thread(() -> read(s, got), "closing-server-reader");
            reader.setDaemon(true);
            reader.start();
            if (closeAfterMillis > 0) {
                closer.schedule(() -> {
                    quietClose(s);
                    n.decrementAndGet();
                }, closeAfterMillis, TimeUnit.MILLISECONDS);
            }
        }
    }

    private static void read(Socket s, ByteArrayOutputStream into) {
        byte[] buf = new byte[4_096];
        try (InputStream in = s.getInputStream()) {
            int n;
            while ((n = in.read(buf)) > 0) {
                synchronized (into) {
                    into.write(buf, 0, n);
                }
            }
        } catch (IOException e) {
            // closed
        }
    }

    private static void quietClose(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // gone
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        closer.shutdownNow();
        sockets.forEach(ClosingServer::quietClose);
    }
}
