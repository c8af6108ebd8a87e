package org.p2psip.core.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

import org.p2psip.core.net.HostPort;

/**
 * A SIP endpoint on plain TCP sockets for tests. It listens on 127.0.0.1
 * (so it can be a UAS a node connects to) and can also open connections
 * itself (as a UAC). Every message it receives remembers the connection it
 * came on, so a test can answer on that connection (RFC 3261 §18.2.2) and
 * check which connection a node chose.
 */
public final class TcpPeer implements AutoCloseable {

    /** A message and the connection it arrived on. */
    public record Received(SipText message, Connection connection) {
    }

    private final ServerSocket server;
    private final List<Connection> connections = new CopyOnWriteArrayList<>();
    private final List<Received> unclaimed = new ArrayList<>();
    private final List<Received> all = new ArrayList<>();

    public TcpPeer() throws IOException {
        server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread acceptor = new Thread(this::acceptLoop, "tcp-peer-accept-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The listening port. */
    public int port() {
        return server.getLocalPort();
    }

    public String hostPort() {
        return "127.0.0.1:" + port();
    }

    /** Opens a connection from an ephemeral port to {@code to}; what arrives on it is collected like the rest. */
    public Connection connect(HostPort to) throws IOException {
        Socket s = new Socket(InetAddress.getByName(to.host()), to.port());
        return adopt(s, false);
    }

    /** The connections other hosts opened to the listening port. */
    public List<Connection> accepted() {
        return connections.stream().filter(Connection::accepted).toList();
    }

    /** The first message not yet claimed that matches, waiting up to {@code timeout}. */
    public Optional<Received> await(Predicate<SipText> condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (unclaimed) {
            while (true) {
                for (int i = 0; i < unclaimed.size(); i++) {
                    if (condition.test(unclaimed.get(i).message())) {
                        return Optional.of(unclaimed.remove(i));
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                unclaimed.wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    public Received expect(Predicate<SipText> condition, String what) throws InterruptedException {
        return await(condition, Duration.ofSeconds(5)).orElseThrow(() -> new AssertionError(
                "no " + what + " over TCP within 5 s; received: " + received()));
    }

    public Received expectResponse(String method, int status) throws InterruptedException {
        return expect(m -> m.isResponse() && m.status() == status && m.method().equals(method),
                status + " to " + method);
    }

    public Received expectRequest(String method) throws InterruptedException {
        return expect(m -> !m.isResponse() && m.method().equals(method), method);
    }

    /** Everything received so far, first lines only. */
    public List<String> received() {
        synchronized (unclaimed) {
            return all.stream().map(r -> r.message().firstLine()).toList();
        }
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                adopt(server.accept(), true);
            } catch (IOException e) {
                return;
            }
        }
    }

    private Connection adopt(Socket s, boolean accepted) throws IOException {
        Connection c = new Connection(s, accepted);
        connections.add(c);
        Thread reader = new Thread(() -> readLoop(c), "tcp-peer-read-" + s.getLocalPort() + "-" + s.getPort());
        reader.setDaemon(true);
        reader.start();
        return c;
    }

    private void readLoop(Connection c) {
        try (InputStream in = c.socket.getInputStream()) {
            while (true) {
                SipText m = readMessage(in);
                if (m == null) {
                    return;
                }
                synchronized (unclaimed) {
                    Received r = new Received(m, c);
                    unclaimed.add(r);
                    all.add(r);
                    unclaimed.notifyAll();
                }
            }
        } catch (IOException e) {
            // the connection closed: nothing more arrives on it
        }
    }

    /** One message framed by Content-Length (RFC 3261 §18.3); CRLF keep-alives are skipped; null at end of stream. */
    static SipText readMessage(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int last4 = 0;
        while (last4 != 0x0D0A0D0A) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            if (head.size() == 0 && (b == '\r' || b == '\n')) {
                continue;
            }
            head.write(b);
            last4 = (last4 << 8) | b;
        }
        String headText = head.toString(StandardCharsets.ISO_8859_1);
        int length = 0;
        for (String line : headText.split("\r\n")) {
            String lower = line.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:") || lower.startsWith("l:")) {
                length = Integer.parseInt(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        byte[] body = in.readNBytes(length);
        return SipText.parse(headText + new String(body, StandardCharsets.ISO_8859_1));
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        connections.forEach(Connection::close);
    }

    /** One TCP connection of this peer. */
    public static final class Connection {
        private final Socket socket;
        private final boolean accepted;

        private Connection(Socket socket, boolean accepted) throws IOException {
            this.socket = socket;
            this.accepted = accepted;
            socket.setTcpNoDelay(true);
        }

        /** Whether the other side opened this connection. */
        public boolean accepted() {
            return accepted;
        }

        public int localPort() {
            return socket.getLocalPort();
        }

        public int remotePort() {
            return socket.getPort();
        }

        /** {@code 127.0.0.1:local-port}, for the Via of requests sent on this connection. */
        public String localHostPort() {
            return "127.0.0.1:" + localPort();
        }

        public synchronized void send(String text) throws IOException {
            OutputStream out = socket.getOutputStream();
            out.write(text.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }

        void close() {
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
        }

        @Override
        public String toString() {
            return (accepted ? "accepted " : "opened ") + socket.getLocalPort() + "<->" + socket.getPort();
        }
    }
}
