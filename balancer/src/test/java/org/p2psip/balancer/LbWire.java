package org.p2psip.balancer;

import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;

import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;

/**
 * Real-socket helpers for the balancer's abuse and overload tests: a stub
 * node, UDP clients on chosen loopback addresses (127.0.0.2 and 127.0.0.3
 * are distinct sources on Linux, while the nodes live on 127.0.0.1 and are
 * trusted), and request text with a body.
 */
final class LbWire {

    static final Duration WAIT = Duration.ofSeconds(5);

    private LbWire() {
    }

    /** A request with the mandatory headers, {@code body} and its Content-Length. */
    static String request(String method, String sentBy, String transport, String callId, String body) {
        return method + " sip:service@example.com SIP/2.0\r\n"
                + "Via: SIP/2.0/" + transport + " " + sentBy + ";branch=" + UdpPeer.branch() + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:tester@example.com>;tag=" + UdpPeer.tag() + "\r\n"
                + "To: <sip:service@example.com>\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 " + method + "\r\n"
                + (body.isEmpty() ? "" : "Content-Type: text/plain\r\n")
                + "Content-Length: " + body.getBytes(StandardCharsets.ISO_8859_1).length + "\r\n\r\n" + body;
    }

    static String callId() {
        return UUID.randomUUID().toString();
    }

    /** Reads one SIP message (headers and Content-Length body) from a stream, or null at end of stream. */
    static String readMessage(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (head.length() < 4 || !head.substring(head.length() - 4).equals("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                return null;
            }
            if (head.length() == 0 && (c == '\r' || c == '\n')) {
                continue; // a pong, or keep-alive CRLFs between messages
            }
            head.append((char) c);
        }
        String headers = head.toString();
        int length = SipText.parse(headers).header("Content-Length").map(String::trim).map(Integer::parseInt)
                .orElse(0);
        byte[] body = in.readNBytes(length);
        return headers + new String(body, StandardCharsets.ISO_8859_1);
    }

    /** Whether the peer closed {@code s} within {@code within}: true at end of stream, false on a timeout. */
    static boolean closedWithin(Socket s, Duration within) throws IOException {
        s.setSoTimeout((int) within.toMillis());
        try {
            while (true) {
                int c = s.getInputStream().read();
                if (c < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            // A reset is a close too.
            return true;
        }
    }

    /** A TCP connection from {@code localAddress}. */
    static Socket connect(String localAddress, HostPort to) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(localAddress, 0));
        s.connect(new InetSocketAddress(to.host(), to.port()), (int) WAIT.toMillis());
        s.setSoTimeout((int) WAIT.toMillis());
        return s;
    }

    /** A UDP endpoint on a chosen loopback address; collects what arrives. */
    static class Udp implements AutoCloseable {

        final DatagramSocket socket;
        private final Thread reader;
        private final List<Received> inbox = new ArrayList<>();
        private final List<Received> all = new ArrayList<>();

        record Received(SipText text, byte[] bytes, InetSocketAddress from) {
        }

        Udp(String address) throws IOException {
            socket = new DatagramSocket(new InetSocketAddress(address, 0));
            socket.setReceiveBufferSize(1 << 20);
            reader = new Thread(this::readLoop, "lb-test-udp-" + socket.getLocalPort());
            reader.setDaemon(true);
            reader.start();
        }

        HostPort hostPort() {
            return new HostPort(socket.getLocalAddress().getHostAddress(), socket.getLocalPort());
        }

        void send(String text, HostPort to) throws IOException {
            byte[] b = text.getBytes(StandardCharsets.ISO_8859_1);
            socket.send(new DatagramPacket(b, b.length, InetAddress.getByName(to.host()), to.port()));
        }

        void send(String text, InetSocketAddress to) throws IOException {
            byte[] b = text.getBytes(StandardCharsets.ISO_8859_1);
            socket.send(new DatagramPacket(b, b.length, to));
        }

        /** The first unclaimed message that matches, waiting up to {@link #WAIT}. */
        Optional<Received> await(Predicate<SipText> condition) throws InterruptedException {
            long deadline = System.nanoTime() + WAIT.toNanos();
            synchronized (inbox) {
                while (true) {
                    for (int i = 0; i < inbox.size(); i++) {
                        if (condition.test(inbox.get(i).text())) {
                            return Optional.of(inbox.remove(i));
                        }
                    }
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return Optional.empty();
                    }
                    inbox.wait(Math.max(1, left / 1_000_000));
                }
            }
        }

        Received expect(Predicate<SipText> condition, String what) throws InterruptedException {
            return await(condition).orElseThrow(() -> new AssertionError("no " + what + " within " + WAIT
                    + "; received: " + firstLines()));
        }

        Received expectResponse(int status) throws InterruptedException {
            return expect(m -> m.isResponse() && m.status() == status, "response " + status);
        }

        /** Everything received so far that matches, claimed or not. */
        List<Received> seen(Predicate<SipText> condition) {
            synchronized (inbox) {
                return all.stream().filter(r -> condition.test(r.text())).toList();
            }
        }

        List<String> firstLines() {
            synchronized (inbox) {
                return all.stream().map(r -> r.text().firstLine()).toList();
            }
        }

        /**
         * Called for each message once it is filed, so that what a client sees answered is already among what
         * the stub received; the stub node answers from here.
         */
        void arrived(Received r) throws IOException {
        }

        private void readLoop() {
            byte[] buf = new byte[65_535];
            while (!socket.isClosed()) {
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                try {
                    socket.receive(p);
                    byte[] bytes = java.util.Arrays.copyOf(p.getData(), p.getLength());
                    Received r = new Received(SipText.parse(bytes, bytes.length), bytes,
                            (InetSocketAddress) p.getSocketAddress());
                    synchronized (inbox) {
                        inbox.add(r);
                        all.add(r);
                        inbox.notifyAll();
                    }
                    arrived(r);
                } catch (IOException e) {
                    if (socket.isClosed()) {
                        return;
                    }
                }
            }
        }

        @Override
        public void close() {
            socket.close();
        }
    }

    /**
     * A node behind the balancer on 127.0.0.1: answers every request with
     * what {@link #responder} builds (200 by default), the balancer's
     * OPTIONS probes included, and keeps the requests.
     */
    static final class StubNode extends Udp {

        volatile Function<SipText, String> responder = r -> r.response(200, "OK", "stub");
        /** How it answers the balancer's health probes. */
        volatile Function<SipText, String> probeResponder = r -> r.response(200, "OK", "stub");

        StubNode() throws IOException {
            super("127.0.0.1");
        }

        @Override
        void arrived(Received r) throws IOException {
            if (!r.text().isResponse() && !"ACK".equals(r.text().method())) {
                boolean probe = r.text().header("Call-ID").orElse("").startsWith("hc-");
                String answer = (probe ? probeResponder : responder).apply(r.text());
                if (answer != null) {
                    send(answer, viaSentBy(r.text()));
                }
            }
        }

        /** Where a SIP stack sends the response to {@code request}: its top Via's sent-by (RFC 3261 §18.2.2). */
        static InetSocketAddress viaSentBy(SipText request) {
            String via = request.headers("Via").get(0);
            String sentBy = via.substring(via.indexOf(' ') + 1).trim();
            int end = sentBy.indexOf(';');
            HostPort hp = HostPort.parse(end < 0 ? sentBy : sentBy.substring(0, end));
            return new InetSocketAddress(hp.host(), hp.port());
        }

        /** Requests from clients (not the balancer's probes) received so far with this Call-ID prefix. */
        List<Received> requests(String callIdPrefix) {
            return seen(m -> !m.isResponse() && m.header("Call-ID").orElse("").startsWith(callIdPrefix));
        }
    }
}
