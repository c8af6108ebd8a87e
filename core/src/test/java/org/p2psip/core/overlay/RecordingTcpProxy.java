package org.p2psip.core.overlay;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.p2psip.core.net.HostPort;

/**
 * A man in the middle for the replay tests: a TCP proxy on 127.0.0.1 that
 * forwards every connection to {@code target} and records what the
 * connecting side sent, so a test can replay a legitimate peer's bytes on a
 * connection of its own ({@link #replay}).
 */
public final class RecordingTcpProxy implements AutoCloseable {

    /** What a node sends on a connection before the peer has authenticated: its hello. */
    public static final int HELLO_BYTES = OverlayHandshake.HELLO_BYTES;
    /** Its hello and its proof: all a node sends a peer whose own proof fails. */
    public static final int HANDSHAKE_BYTES = OverlayHandshake.HANDSHAKE_BYTES;

    /** What came back on a replayed connection. */
    public record Replayed(int bytesAnswered, boolean closedByPeer) {
    }

    private final ServerSocket listener;
    private final HostPort target;
    private final List<ByteArrayOutputStream> recorded = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    public RecordingTcpProxy(HostPort target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        Thread acceptor = new Thread(this::accept, "recording-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Where to connect to reach the target through the proxy. */
    public HostPort address() {
        return new HostPort("127.0.0.1", listener.getLocalPort());
    }

    /** Connections proxied so far. */
    public int connections() {
        return recorded.size();
    }

    /** Everything the connecting side of connection {@code index} has sent so far. */
    public byte[] sentByClient(int index) {
        ByteArrayOutputStream bytes = recorded.get(index);
        synchronized (bytes) {
            return bytes.toByteArray();
        }
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(target.host(), target.port());
                sockets.add(client);
                sockets.add(server);
                ByteArrayOutputStream record = new ByteArrayOutputStream();
                recorded.add(record);
                pump(client, server, record);
                pump(server, client, null);
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void pump(Socket from, Socket to, ByteArrayOutputStream record) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    if (record != null) {
                        synchronized (record) {
                            record.write(buffer, 0, n);
                        }
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // One side went away; closing both below ends the other pump too.
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "recording-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Opens a fresh connection to {@code to}, sends {@code bytes} as an
     * attacker would, and reads whatever comes back until the peer closes
     * the connection or {@code limit} passes.
     */
    public static Replayed replay(HostPort to, byte[] bytes, Duration limit) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(to.host(), to.port()), (int) limit.toMillis());
            try {
                socket.getOutputStream().write(bytes);
                socket.getOutputStream().flush();
            } catch (IOException e) {
                // Closed on us mid-write: reading below tells what came back before.
            }
            return readUntilClosed(socket, limit);
        }
    }

    /** Reads from {@code socket} until the peer closes it or {@code limit} passes. */
    public static Replayed readUntilClosed(Socket socket, Duration limit) throws IOException {
        long deadline = System.nanoTime() + limit.toNanos();
        int answered = 0;
        byte[] buffer = new byte[8192];
        InputStream in = socket.getInputStream();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return new Replayed(answered, false);
            }
            socket.setSoTimeout((int) Math.max(1, left / 1_000_000));
            try {
                int n = in.read(buffer);
                if (n < 0) {
                    return new Replayed(answered, true);
                }
                answered += n;
            } catch (SocketTimeoutException e) {
                return new Replayed(answered, false);
            } catch (IOException e) {
                // A reset is the peer closing too.
                return new Replayed(answered, true);
            }
        }
    }

    @Override
    public void close() {
        closeQuietly(listener);
        sockets.forEach(RecordingTcpProxy::closeQuietly);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing anyway
        }
    }
}
