package org.p2psip.servlet.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.p2psip.core.auth.UserCredentials;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.RecordingTcpProxy;
import org.p2psip.servlet.node.FrontNode;
import org.p2psip.servlet.testing.SharedStoreNodes;

/**
 * What crosses the wire between {@code p2psip user add} and a node, seen
 * by someone on the path: a recording proxy between the admin client and
 * the first of two nodes of one cluster. The capture holds neither the
 * password nor any HA1; the captured request, sent again as it is to the
 * other node or to the same one, is refused, and the user it would have
 * re-created after its removal stays removed.
 */
class AdminWireIntegrationTest {

    private static final String SECRET = "admin-wire-secret";

    private static FrontNode node(String store) throws Exception {
        return SharedStoreNodes.withAdmin(store, SECRET);
    }

    @Test
    void noHa1CrossesInClearAndACapturedRequestIsRefusedByEveryNode() throws Exception {
        String store = "admin-wire-" + UUID.randomUUID();
        AddressOfRecord bob = AddressOfRecord.parse("sip:bob@p2psip.test");
        UserCredentials credentials = UserCredentials.fromPassword(bob, "correct horse battery");
        byte[] secret = SECRET.getBytes(StandardCharsets.UTF_8);
        try (FrontNode one = node(store); FrontNode two = node(store);
             RecordingTcpProxy relay = new RecordingTcpProxy(one.adminAddress().orElseThrow())) {
            AdminClient throughRelay = new AdminClient(List.of(relay.address()), secret, Clock.systemUTC());
            assertEquals(1, throughRelay.putUsers(List.of(credentials)));
            String captured = captured(relay);
            assertTrue(captured.contains("POST /v1/users"), captured);
            assertFalse(captured.contains("correct horse battery"), "the password crossed in clear");
            for (String ha1 : credentials.ha1().values()) {
                assertFalse(captured.contains(ha1), "an HA1 crossed in clear:\n" + captured);
            }

            AdminClient operator = new AdminClient(List.of(one.adminAddress().orElseThrow()), secret,
                    Clock.systemUTC());
            assertTrue(operator.removeUser(bob));
            byte[] request = requestBytes(captured(relay), "POST /v1/users");

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

    /** Everything clients sent through {@code proxy}, as text. */
    private static String captured(RecordingTcpProxy proxy) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < proxy.connections(); i++) {
            b.append(new String(proxy.sentByClient(i), StandardCharsets.ISO_8859_1));
        }
        return b.toString();
    }

    /** The bytes of the one captured request that starts with {@code startLine}: head and body. */
    private static byte[] requestBytes(String all, String startLine) {
        int start = all.indexOf(startLine);
        assertTrue(start >= 0, "no " + startLine + " captured");
        int headEnd = all.indexOf("\r\n\r\n", start) + 4;
        String head = all.substring(start, headEnd);
        int length = Integer.parseInt(head.replaceAll("(?is).*content-length:\\s*(\\d+).*", "$1"));
        return all.substring(start, headEnd + length).getBytes(StandardCharsets.ISO_8859_1);
    }
}
