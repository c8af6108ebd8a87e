package org.p2psip.core.testing;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

import org.p2psip.core.net.HostPort;

/**
 * A SIP endpoint on a plain UDP socket for tests: sends text, collects
 * everything that arrives, and waits (with a deadline, never a sleep) for
 * a message matching a condition.
 */
public final class UdpPeer implements AutoCloseable {

    private final DatagramSocket socket;
    private final Thread reader;
    private final List<SipText> unclaimed = new ArrayList<>();
    private final List<SipText> all = new ArrayList<>();

    public UdpPeer() throws SocketException {
        this(InetAddress.getLoopbackAddress());
    }

    /** A peer on {@code address} (another loopback address is another source to the node). */
    public UdpPeer(InetAddress address) throws SocketException {
        socket = new DatagramSocket(new InetSocketAddress(address, 0));
        // Room for a burst of answers (a node answers hundreds of held REGISTERs at once): the default
        // buffer holds about a hundred datagrams, and what overflows it is lost before the reader sees it.
        socket.setReceiveBufferSize(4 << 20);
        reader = new Thread(this::readLoop, "udp-peer-" + socket.getLocalPort());
        reader.setDaemon(true);
        reader.start();
    }

    public int port() {
        return socket.getLocalPort();
    }

    /** {@code host:port} of this peer, for Via and Contact. */
    public String hostPort() {
        return socket.getLocalAddress().getHostAddress() + ":" + port();
    }

    public void send(String text, HostPort to) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        sendBytes(bytes, to);
    }

    public void sendBytes(byte[] bytes, HostPort to) throws IOException {
        socket.send(new DatagramPacket(bytes, bytes.length, InetAddress.getByName(to.host()), to.port()));
    }

    /** The first message not yet claimed that matches, waiting up to {@code timeout}. */
    public Optional<SipText> await(Predicate<SipText> condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (unclaimed) {
            while (true) {
                for (int i = 0; i < unclaimed.size(); i++) {
                    if (condition.test(unclaimed.get(i))) {
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

    /** Like {@link #await} but fails the test with a description of what arrived instead. */
    public SipText expect(Predicate<SipText> condition, String what) throws InterruptedException {
        return await(condition, Duration.ofSeconds(5)).orElseThrow(() -> new AssertionError(
                "no " + what + " within 5 s; received: " + received()));
    }

    /** The response to {@code method} with {@code status}. */
    public SipText expectResponse(String method, int status) throws InterruptedException {
        return expect(m -> m.isResponse() && m.status() == status && m.method().equals(method),
                status + " to " + method);
    }

    public SipText expectRequest(String method) throws InterruptedException {
        return expect(m -> !m.isResponse() && m.method().equals(method), method);
    }

    /** Everything received so far, first lines only. */
    public List<String> received() {
        synchronized (unclaimed) {
            return all.stream().map(SipText::firstLine).toList();
        }
    }

    public static String branch() {
        return "z9hG4bK" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    }

    public static String tag() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFFFL);
    }

    private void readLoop() {
        byte[] buf = new byte[65535];
        while (!socket.isClosed()) {
            DatagramPacket p = new DatagramPacket(buf, buf.length);
            try {
                socket.receive(p);
            } catch (IOException e) {
                return;
            }
            SipText m = SipText.parse(p.getData(), p.getLength());
            synchronized (unclaimed) {
                unclaimed.add(m);
                all.add(m);
                unclaimed.notifyAll();
            }
        }
    }

    @Override
    public void close() {
        socket.close();
    }
}
