package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.testing.FreePorts;

/**
 * The connection-exhaustion attack on the balancer: 17 addresses open
 * 1,000 TCP connections each and never send a byte, more than the 16,000
 * places there are. A phone at an 18th address still connects and
 * registers, and every silent connection is closed within the message
 * deadline (10 s) of its start, by that deadline or earlier to make room.
 */
@Timeout(300)
class SilentConnectionsTest {

    private static final int ADDRESSES = 17;
    private static final int PER_ADDRESS = 1_000;
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    @Test
    void seventeenThousandSilentConnectionsLockNoPhoneOutAndAreClosedWithinTheDeadline() throws Exception {
        int base = FreePorts.consecutive(2);
        try (NodeProcess cluster = NodeProcess.start(Map.of("P2PSIP_CLUSTER_SECRET", "silent-" + UUID.randomUUID()),
                "cluster", "--dht", "local", "--nodes", "1", "--sip", "127.0.0.1:" + base, "--auth", "none",
                "--domain", "p2psip.test", "--admin-base", "0")) {
            cluster.awaitOutput("p2psip cluster ready", Duration.ofSeconds(120));
            InetSocketAddress balancer = new InetSocketAddress("127.0.0.1", base);
            List<Socket> silent = new ArrayList<>(ADDRESSES * PER_ADDRESS);
            int notConnected = 0;
            try {
                for (int a = 1; a <= ADDRESSES; a++) {
                    InetAddress from = InetAddress.getByName("127.0.0." + a);
                    for (int i = 0; i < PER_ADDRESS; i++) {
                        Socket s = new Socket();
                        try {
                            s.bind(new InetSocketAddress(from, 0));
                            s.connect(balancer, 2_000);
                            silent.add(s);
                        } catch (IOException e) {
                            notConnected++;
                            s.close();
                        }
                    }
                }
                Instant lastOpened = Instant.now();

                String answer = registerFrom(InetAddress.getByName("127.0.0.18"), balancer);
                assertTrue(answer.startsWith("SIP/2.0 200 "), "the phone at an 18th address: " + answer);

                int stillOpen = openAfter(silent, lastOpened.plus(DEADLINE).plusSeconds(3));
                System.out.printf("silent connections: %d opened, %d not even connected, %d still open %d s after "
                        + "the last%n", silent.size(), notConnected, stillOpen, DEADLINE.toSeconds() + 3);
                assertEquals(0, stillOpen, "silent connections outlived the deadline");
            } finally {
                for (Socket s : silent) {
                    s.close();
                }
            }
        }
    }

    /** A REGISTER over a TCP connection of its own from {@code from}; the answer's status line. */
    private static String registerFrom(InetAddress from, InetSocketAddress to) throws IOException {
        try (Socket phone = new Socket()) {
            phone.bind(new InetSocketAddress(from, 0));
            phone.connect(to, 5_000);
            phone.setSoTimeout(10_000);
            String local = from.getHostAddress() + ":" + phone.getLocalPort();
            String register = "REGISTER sip:p2psip.test SIP/2.0\r\n"
                    + "Via: SIP/2.0/TCP " + local + ";branch=z9hG4bK-" + UUID.randomUUID() + "\r\n"
                    + "Max-Forwards: 70\r\nTo: <sip:silent-phone@p2psip.test>\r\n"
                    + "From: <sip:silent-phone@p2psip.test>;tag=1\r\nCall-ID: " + UUID.randomUUID() + "\r\n"
                    + "CSeq: 1 REGISTER\r\nContact: <sip:silent-phone@" + local + ";transport=tcp>\r\n"
                    + "Expires: 600\r\nContent-Length: 0\r\n\r\n";
            phone.getOutputStream().write(register.getBytes(StandardCharsets.US_ASCII));
            phone.getOutputStream().flush();
            InputStream in = phone.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int c; (c = in.read()) >= 0 && c != '\n'; ) {
                line.append((char) c);
            }
            return line.toString().strip();
        }
    }

    /**
     * How many of {@code sockets} the other side has not closed by {@code
     * when}: looked at every half second until none is left or it is time.
     */
    private static int openAfter(List<Socket> sockets, Instant when) throws Exception {
        List<Socket> open = new ArrayList<>(sockets);
        while (true) {
            open.removeIf(SilentConnectionsTest::closedByPeer);
            if (open.isEmpty() || !Instant.now().isBefore(when)) {
                return open.size();
            }
            TimeUnit.MILLISECONDS.sleep(500);
        }
    }

    private static boolean closedByPeer(Socket s) {
        try {
            s.setSoTimeout(1);
            return s.getInputStream().read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            // Reset by the balancer: closed.
            return true;
        }
    }
}
