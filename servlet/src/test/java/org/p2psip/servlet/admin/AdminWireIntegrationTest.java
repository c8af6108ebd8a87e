package org.p2psip.servlet.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.p2psip.core.auth.UserCredentials;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.node.FrontNode;
import org.p2psip.servlet.node.NodeSettings;
import org.p2psip.servlet.node.ProtectionSettings;
import org.p2psip.servlet.node.TrustSettings;
import org.p2psip.servlet.testing.SharedLocalDhtProvider;

/**
 * What crosses the wire between {@code p2psip user add} and a node, seen
 * by someone on the path: a recording relay between the admin client and
 * the first of two nodes of one cluster. The capture holds neither the
 * password nor any HA1; the captured request, sent again as it is to the
 * other node or to the same one, is refused, and the user it would have
 * re-created after its removal stays removed.
 */
class AdminWireIntegrationTest {

    private static final String SECRET = "admin-wire-secret";

    private static FrontNode node(String store) throws Exception {
        return FrontNode.start(new NodeSettings(new HostPort("127.0.0.1", 0), SharedLocalDhtProvider.NAME,
                Optional.empty(), List.of(), 1, Map.of("store", store), RegistrarPolicy.DEFAULT,
                NodeSettings.DEFAULT_DHT_TIMEOUT, NodeSettings.DEFAULT_SIP_THREADS, Clock.systemUTC(),
                TrustSettings.open("p2psip.test").withClusterSecret(SECRET).withAdmin(new HostPort("127.0.0.1", 0)),
                ProtectionSettings.DEFAULT, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()));
    }

    @Test
    void noHa1CrossesInClearAndACapturedRequestIsRefusedByEveryNode() throws Exception {
        String store = "admin-wire-" + UUID.randomUUID();
        AddressOfRecord bob = AddressOfRecord.parse("sip:bob@p2psip.test");
        UserCredentials credentials = UserCredentials.fromPassword(bob, "correct horse battery");
        byte[] secret = SECRET.getBytes(StandardCharsets.UTF_8);
        try (FrontNode one = node(store); FrontNode two = node(store);
             RecordingRelay relay = new RecordingRelay(one.adminAddress().orElseThrow())) {
            AdminClient throughRelay = new AdminClient(List.of(relay.address()), secret, Clock.systemUTC());
            assertEquals(1, throughRelay.putUsers(List.of(credentials)));
            String captured = relay.captured();
            assertTrue(captured.contains("POST /v1/users"), captured);
            assertFalse(captured.contains("correct horse battery"), "the password crossed in clear");
            for (String ha1 : credentials.ha1().values()) {
                assertFalse(captured.contains(ha1), "an HA1 crossed in clear:\n" + captured);
            }

            AdminClient operator = new AdminClient(List.of(one.adminAddress().orElseThrow()), secret,
                    Clock.systemUTC());
            assertTrue(operator.removeUser(bob));
            byte[] request = relay.requestBytes("POST /v1/users");

            String atOther = send(two.adminAddress().orElseThrow(), request);
            String atSame = send(one.adminAddress().orElseThrow(), request);

            assertTrue(atOther.startsWith("HTTP/1.1 401"), atOther);
            assertTrue(atSame.startsWith("HTTP/1.1 401"), atSame);
            assertFalse(operator.listUsers().contains(bob.toString()), "the replay re-created " + bob);
        }
    }

    /** Sends {@code request} as it was captured and returns the raw answer. */
    private static String send(HostPort to, byte[] request) throws IOException {
        try (Socket s = new Socket(InetAddress.getByName(to.host()), to.port())) {
            s.getOutputStream().write(request);
            s.getOutputStream().flush();
            s.shutdownOutput();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    /**
     * A TCP relay to {@code target} that keeps every byte clients sent,
     * connection by connection, as someone on the path would.
     */
    private static final class RecordingRelay implements AutoCloseable {

        private final ServerSocket server;
        private final List<ByteArrayOutputStream> connections = new java.util.concurrent.CopyOnWriteArrayList<>();

        RecordingRelay(HostPort target) throws IOException {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread accept = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket client = server.accept();
                        Socket upstream = new Socket(InetAddress.getByName(target.host()), target.port());
                        ByteArrayOutputStream seen = new ByteArrayOutputStream();
                        connections.add(seen);
                        pump(client.getInputStream(), upstream.getOutputStream(), seen, upstream);
                        pump(upstream.getInputStream(), client.getOutputStream(), null, client);
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "recording-relay");
            accept.setDaemon(true);
            accept.start();
        }

        private static void pump(InputStream in, OutputStream out, ByteArrayOutputStream copy, Socket closeAfter) {
            Thread t = new Thread(() -> {
                byte[] buffer = new byte[8192];
                try (closeAfter) {
                    for (int n; (n = in.read(buffer)) > 0; ) {
                        if (copy != null) {
                            synchronized (copy) {
                                copy.write(buffer, 0, n);
                            }
                        }
                        out.write(buffer, 0, n);
                        out.flush();
                    }
                } catch (IOException e) {
                    // The other side closed: the relay's job for this connection is done.
                }
            }, "recording-relay-pump");
            t.setDaemon(true);
            t.start();
        }

        HostPort address() {
            return new HostPort("127.0.0.1", server.getLocalPort());
        }

        /** Everything clients sent, as text. */
        String captured() {
            StringBuilder b = new StringBuilder();
            for (ByteArrayOutputStream c : connections) {
                synchronized (c) {
                    b.append(c.toString(StandardCharsets.ISO_8859_1));
                }
            }
            return b.toString();
        }

        /** The bytes of the one captured request that starts with {@code startLine}: head and body. */
        byte[] requestBytes(String startLine) {
            String all = captured();
            int start = all.indexOf(startLine);
            assertTrue(start >= 0, "no " + startLine + " captured");
            int headEnd = all.indexOf("\r\n\r\n", start) + 4;
            String head = all.substring(start, headEnd);
            int length = Integer.parseInt(head.replaceAll("(?is).*content-length:\\s*(\\d+).*", "$1"));
            return all.substring(start, headEnd + length).getBytes(StandardCharsets.ISO_8859_1);
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
