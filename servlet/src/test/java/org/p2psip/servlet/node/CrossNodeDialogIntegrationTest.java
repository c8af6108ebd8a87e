package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.servlet.testing.SharedLocalDhtProvider;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;

/**
 * The requests of one call meet different nodes, as they do behind a
 * balancer that spreads transactions: the INVITE through one node, the ACK
 * and the BYE through another, from a caller that (like SIPp's built-in
 * UAC) sends them to the AOR instead of following Record-Route, and to a
 * callee that (like SIPp's built-in UAS) answers every request of the call
 * to the node the INVITE came from.
 */
class CrossNodeDialogIntegrationTest {

    private static FrontNode node1;
    private static FrontNode node2;

    @BeforeAll
    static void startNodes() throws Exception {
        String store = "dialog-" + UUID.randomUUID();
        node2 = FrontNode.start(settings(store, List.of()));
        node1 = FrontNode.start(settings(store, List.of(node2.sipAddress())));
    }

    private static NodeSettings settings(String store, List<HostPort> otherNodes) {
        return new NodeSettings(new HostPort("127.0.0.1", 0), SharedLocalDhtProvider.NAME, Optional.empty(), List.of(),
                1, Map.of("store", store), RegistrarPolicy.DEFAULT, NodeSettings.DEFAULT_DHT_TIMEOUT,
                NodeSettings.DEFAULT_SIP_THREADS, Clock.systemUTC(),
                TrustSettings.open("example.com").withAliases(otherNodes), ProtectionSettings.DEFAULT, Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty());
    }

    @AfterAll
    static void stopNodes() {
        node1.close();
        node2.close();
    }

    @Test
    void aCallWhoseInviteAndByeMeetDifferentNodesCompletes() throws Exception {
        callThroughTwoNodes(false);
    }

    @Test
    void aResponseSentToTheWrongNodeOfTheClusterStillReachesTheCaller() throws Exception {
        callThroughTwoNodes(true);
    }

    /** INVITE through node 1, ACK and BYE through node 2; the callee answers the BYE to node 1 if {@code stray}. */
    private void callThroughTwoNodes(boolean stray) throws Exception {
        String user = "callee-" + UUID.randomUUID().toString().substring(0, 6);
        String aor = "sip:" + user + "@example.com";
        try (UdpPeer caller = new UdpPeer(); UdpPeer callee = new UdpPeer()) {
            caller.send(RequestText.standard("REGISTER", "sip:example.com", callee.hostPort(), aor, aor, "r-" + user, 1)
                    .with("Contact: <sip:" + user + "@" + callee.hostPort() + ">").text(), node1.sipAddress());
            assertEquals(200, caller.expectResponse("REGISTER", 200).status());

            String callId = "x-" + user;
            caller.send(RequestText.standard("INVITE", aor, caller.hostPort(), "sip:caller@elsewhere.test", aor, callId, 1)
                    .with("Contact: <sip:caller@" + caller.hostPort() + ">").text(), node1.sipAddress());
            SipText invite = callee.expectRequest("INVITE");
            callee.send(invite.response(200, "OK", "t1", "Contact: <sip:" + user + "@" + callee.hostPort() + ">"), node1.sipAddress());
            SipText ok = caller.expectResponse("INVITE", 200);
            String to = ok.header("to").orElseThrow();
            String from = ok.header("from").orElseThrow();

            caller.send(RequestText.request("ACK", aor).with("Via: SIP/2.0/UDP " + caller.hostPort() + ";branch=" + UdpPeer.branch())
                    .with("From: " + from).with("To: " + to).with("Call-ID: " + callId).with("CSeq: 1 ACK")
                    .with("Max-Forwards: 70").text(), node2.sipAddress());
            callee.expectRequest("ACK");
            caller.send(RequestText.request("BYE", aor).with("Via: SIP/2.0/UDP " + caller.hostPort() + ";branch=" + UdpPeer.branch())
                    .with("From: " + from).with("To: " + to).with("Call-ID: " + callId).with("CSeq: 2 BYE")
                    .with("Max-Forwards: 70").text(), node2.sipAddress());
            SipText bye = callee.expectRequest("BYE");
            callee.send(bye.response(200, "OK", null), stray ? node1.sipAddress() : node2.sipAddress());

            assertEquals(200, caller.expectResponse("BYE", 200).status());
        }
    }
}
