package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.servlet.testing.SharedLocalDhtProvider;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;

/**
 * Nodes that record-route in their front's name (the balancer's, here a
 * plain socket standing in for it): the dialog's Record-Route names the
 * front, not the node, so a BYE that the front hands to another node after
 * the first one is gone still reaches the callee. A caller that reached
 * the front over TCP gets a second value with {@code transport=tcp} facing
 * it, the UDP one facing the callee on top (RFC 5658 §3.3).
 */
class RecordRouteFrontIntegrationTest {

    private static NodeSettings settings(String store, HostPort front) {
        return new NodeSettings(new HostPort("127.0.0.1", 0), SharedLocalDhtProvider.NAME, Optional.empty(), List.of(),
                1, Map.of("store", store), RegistrarPolicy.DEFAULT, NodeSettings.DEFAULT_DHT_TIMEOUT,
                NodeSettings.DEFAULT_SIP_THREADS, Clock.systemUTC(),
                TrustSettings.open("example.com").withClusterSecret("front-test").withAliases(List.of(front))
                        .withRecordRoute(front, Optional.empty()),
                ProtectionSettings.DEFAULT, Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty());
    }

    /**
     * Registers {@code contact} under a host name: the node sends to a UA at
     * a name itself, so these tests see the INVITE at the UA, not at the
     * stand-in front.
     */
    private static void register(UdpPeer ua, FrontNode node, String user, UdpPeer contact) throws Exception {
        register(ua, node, user, "localhost:" + contact.port());
    }

    private static void register(UdpPeer ua, FrontNode node, String user, String contactHostPort) throws Exception {
        String aor = "sip:" + user + "@example.com";
        ua.send(RequestText.standard("REGISTER", "sip:example.com", ua.hostPort(), aor, aor, "r-" + user, 1)
                .with("Contact: <sip:" + user + "@" + contactHostPort + ">").text(), node.sipAddress());
        assertEquals(200, ua.expectResponse("REGISTER", 200).status());
    }

    @Test
    void aByeHandedToAnotherNodeAfterTheFirstIsGoneReachesTheCallee() throws Exception {
        String store = "front-" + UUID.randomUUID();
        try (UdpPeer front = new UdpPeer(); UdpPeer caller = new UdpPeer(); UdpPeer callee = new UdpPeer()) {
            HostPort frontAddress = HostPort.parse(front.hostPort());
            FrontNode node2 = FrontNode.start(settings(store, frontAddress));
            try {
                String user = "bob-" + UUID.randomUUID().toString().substring(0, 6);
                String aor = "sip:" + user + "@example.com";
                String callId = "front-call-" + user;
                String recordRoute;
                try (FrontNode node1 = FrontNode.start(settings(store, frontAddress))) {
                    register(caller, node1, user, callee);
                    caller.send(RequestText.standard("INVITE", aor, caller.hostPort(), "sip:alice@elsewhere.test", aor,
                            callId, 1).with("Contact: <sip:alice@" + caller.hostPort() + ">").text(), node1.sipAddress());
                    SipText invite = callee.expectRequest("INVITE");
                    List<String> recorded = invite.headers("record-route");
                    assertEquals(1, recorded.size(), recorded.toString());
                    recordRoute = recorded.get(0);
                    assertTrue(recordRoute.contains("sip:" + front.hostPort() + ";"), recordRoute);
                    assertTrue(recordRoute.contains(";lr") && recordRoute.contains(";dt="), recordRoute);
                    assertFalse(recordRoute.contains(node1.sipAddress().toString()), recordRoute);
                    callee.send(invite.response(200, "OK", "b1", "Contact: <sip:" + user + "@" + callee.hostPort() + ">",
                            "Record-Route: " + recordRoute), node1.sipAddress());
                    assertEquals(200, caller.expectResponse("INVITE", 200).status());
                }

                caller.send(RequestText.request("BYE", "sip:" + user + "@localhost:" + callee.port())
                        .with("Via: SIP/2.0/UDP " + caller.hostPort() + ";branch=" + UdpPeer.branch())
                        .with("Route: " + recordRoute)
                        .with("From: <sip:alice@elsewhere.test>;tag=a1").with("To: <" + aor + ">;tag=b1")
                        .with("Call-ID: " + callId).with("CSeq: 2 BYE").with("Max-Forwards: 70").text(),
                        node2.sipAddress());
                SipText bye = callee.expectRequest("BYE");
                assertTrue(bye.headers("route").isEmpty(), "the front's Route was taken as the node's own: "
                        + bye.headers("route"));
                callee.send(bye.response(200, "OK", null), node2.sipAddress());
                assertEquals(200, caller.expectResponse("BYE", 200).status());
            } finally {
                node2.close();
            }
        }
    }

    @Test
    void aRequestForAUaAtAnAddressGoesOutThroughTheFront() throws Exception {
        String store = "front-out-" + UUID.randomUUID();
        try (UdpPeer front = new UdpPeer(); UdpPeer caller = new UdpPeer(); UdpPeer callee = new UdpPeer();
             FrontNode node = FrontNode.start(settings(store, HostPort.parse(front.hostPort())))) {
            String user = "erin-" + UUID.randomUUID().toString().substring(0, 6);
            String aor = "sip:" + user + "@example.com";
            register(caller, node, user, callee.hostPort());
            caller.send(RequestText.standard("INVITE", aor, caller.hostPort(), "sip:alice@elsewhere.test", aor,
                    "front-out-" + user, 1).with("Contact: <sip:alice@" + caller.hostPort() + ">").text(),
                    node.sipAddress());

            SipText invite = front.expectRequest("INVITE");
            assertEquals("INVITE sip:" + user + "@" + callee.hostPort() + " SIP/2.0", invite.firstLine());
            List<String> routes = invite.headers("route");
            assertEquals(1, routes.size(), routes.toString());
            assertTrue(routes.get(0).contains("sip:" + front.hostPort() + ";lr") && !routes.get(0).contains("dt="),
                    routes.toString());
        }
    }

    @Test
    void aCallerOnTcpBehindTheFrontGetsARecordRouteOfItsOwn() throws Exception {
        String store = "front-tcp-" + UUID.randomUUID();
        try (UdpPeer front = new UdpPeer(); UdpPeer callee = new UdpPeer();
             FrontNode node = FrontNode.start(settings(store, HostPort.parse(front.hostPort())))) {
            String user = "carol-" + UUID.randomUUID().toString().substring(0, 6);
            String aor = "sip:" + user + "@example.com";
            register(front, node, user, callee);
            // As the balancer relays it: its own Via on top, the TCP caller's below.
            front.send(RequestText.request("INVITE", aor)
                    .with("Via: SIP/2.0/UDP " + front.hostPort() + ";branch=" + UdpPeer.branch())
                    .with("Via: SIP/2.0/TCP 192.0.2.10:5060;branch=" + UdpPeer.branch() + ";received=127.0.0.1")
                    .with("From: <sip:dave@elsewhere.test>;tag=d1").with("To: <" + aor + ">")
                    .with("Call-ID: front-tcp-" + user).with("CSeq: 1 INVITE").with("Max-Forwards: 70")
                    .with("Contact: <sip:dave@192.0.2.10:5060;transport=tcp>").text(), node.sipAddress());
            SipText invite = callee.expectRequest("INVITE");

            List<String> recorded = invite.headers("record-route");
            assertEquals(2, recorded.size(), recorded.toString());
            assertTrue(recorded.get(0).contains("sip:" + front.hostPort() + ";") && !recorded.get(0).contains("transport"),
                    "the value facing the UDP callee is on top: " + recorded);
            assertTrue(recorded.get(1).contains("sip:" + front.hostPort() + ";") && recorded.get(1).contains("transport=tcp"),
                    "the value facing the TCP caller below it: " + recorded);
        }
    }
}
