package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;

/** Calls and proxy rules (RFC 3261 §16) through a node, between raw-socket user agents. */
class ProxyIntegrationTest {

    private static FrontNode node;
    private UdpPeer caller;
    private UdpPeer callee;
    private String user;

    @BeforeAll
    static void startNode() throws Exception {
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("example.com")));
    }

    @AfterAll
    static void stopNode() {
        node.close();
    }

    @BeforeEach
    void openPeers() throws Exception {
        caller = new UdpPeer();
        callee = new UdpPeer();
        user = "bob-" + UUID.randomUUID();
    }

    @AfterEach
    void closePeers() {
        caller.close();
        callee.close();
    }

    private String aor() {
        return "sip:" + user + "@example.com";
    }

    private HostPort nodeAddress() {
        return node.sipAddress();
    }

    /** Registers {@code contacts} for the test's AOR, each a full Contact header value. */
    private void register(UdpPeer from, String... contacts) throws Exception {
        RequestText r = RequestText.standard("REGISTER", "sip:example.com", from.hostPort(), aor(), aor(),
                "reg-" + UUID.randomUUID(), 1);
        for (String c : contacts) {
            r.with("Contact: " + c);
        }
        from.send(r.text(), nodeAddress());
        from.expectResponse("REGISTER", 200);
    }

    private String calleeContact(UdpPeer peer) {
        return "sip:" + user + "@" + peer.hostPort();
    }

    private RequestText invite(String uri) {
        return RequestText.standard("INVITE", uri, caller.hostPort(), "sip:alice@example.com", aor(),
                "call-" + UUID.randomUUID(), 1).with("Contact: <sip:alice@" + caller.hostPort() + ">");
    }

    @Test
    void wholeCallGoesThroughTheNodeWithRecordRoute() throws Exception {
        register(callee, "<" + calleeContact(callee) + ">");
        caller.send(invite(aor()).text(), nodeAddress());

        caller.expectResponse("INVITE", 100);
        SipText inv = callee.expectRequest("INVITE");
        assertEquals(calleeContact(callee), inv.requestUri(), "Request-URI is the registered contact");
        assertEquals("69", inv.header("max-forwards").orElse(""));
        assertEquals(2, inv.headers("via").size(), inv.headers("via").toString());
        String recordRoute = inv.header("record-route").orElseThrow(() -> new AssertionError("no Record-Route"));
        assertTrue(recordRoute.contains(nodeAddress().toString()) && recordRoute.contains(";lr"), recordRoute);

        String toTag = UdpPeer.tag();
        callee.send(inv.response(180, "Ringing", toTag), nodeAddress());
        // The node's pool may process two datagrams in either order, and a
        // provisional after the final response is rightly not forwarded.
        caller.expectResponse("INVITE", 180);
        callee.send(inv.response(200, "OK", toTag, "Contact: <" + calleeContact(callee) + ">"), nodeAddress());
        SipText ok = caller.expectResponse("INVITE", 200);
        assertEquals(List.of(recordRoute), ok.headers("record-route"));
        assertEquals(1, ok.headers("via").size(), "the node removed its own Via");

        caller.send(inDialog("ACK", ok, 1).text(), nodeAddress());
        SipText ack = callee.expectRequest("ACK");
        assertEquals(calleeContact(callee), ack.requestUri());
        assertTrue(ack.headers("route").isEmpty(), "the node popped its own Route");

        caller.send(inDialog("BYE", ok, 2).text(), nodeAddress());
        SipText bye = callee.expectRequest("BYE");
        callee.send(bye.response(200, "OK", null), nodeAddress());
        caller.expectResponse("BYE", 200);
    }

    @Test
    void anAckSentAgainForARetransmitted2xxLeavesExactlyAsTheFirstDid() throws Exception {
        // RFC 3261 §13.2.2.4: the caller acknowledges every copy of the 2xx with the same ACK;
        // forwarded statelessly (§16.11), both copies must carry the same branch.
        register(callee, "<" + calleeContact(callee) + ">");
        caller.send(invite(aor()).text(), nodeAddress());
        SipText inv = callee.expectRequest("INVITE");
        String toTag = UdpPeer.tag();
        callee.send(inv.response(200, "OK", toTag, "Contact: <" + calleeContact(callee) + ">"), nodeAddress());
        SipText ok = caller.expectResponse("INVITE", 200);
        String ackText = inDialog("ACK", ok, 1).text();

        caller.send(ackText, nodeAddress());
        SipText first = callee.expectRequest("ACK");
        caller.send(ackText, nodeAddress());
        SipText second = callee.expectRequest("ACK");

        assertEquals(first.headers("via"), second.headers("via"));
        assertTrue(first.headers("via").get(0).contains(";branch=z9hG4bK"), first.headers("via").toString());
    }

    /** An in-dialog request from the caller, routed by the Record-Route of {@code ok} (RFC 3261 §12.2.1.1). */
    private RequestText inDialog(String method, SipText ok, long cseq) {
        String target = SipText.uriOf(ok.header("contact").orElseThrow());
        return RequestText.request(method, target)
                .with("Via: SIP/2.0/UDP " + caller.hostPort() + ";branch=" + UdpPeer.branch())
                .with("Route: " + ok.header("record-route").orElseThrow())
                .with("From: " + ok.header("from").orElseThrow())
                .with("To: " + ok.header("to").orElseThrow())
                .with("Call-ID: " + ok.header("call-id").orElseThrow())
                .with("CSeq: " + cseq + " " + method)
                .with("Max-Forwards: 70");
    }

    @Test
    void ackAndByeAddressedToTheAorWithoutRouteAreProxiedByLookup() throws Exception {
        // SIPp's built-in uac ignores Record-Route and sends ACK and BYE to the AOR.
        register(callee, "<" + calleeContact(callee) + ">");
        RequestText invite = invite(aor());
        caller.send(invite.text(), nodeAddress());
        SipText inv = callee.expectRequest("INVITE");
        String toTag = UdpPeer.tag();
        callee.send(inv.response(200, "OK", toTag, "Contact: <" + calleeContact(callee) + ">"), nodeAddress());
        SipText ok = caller.expectResponse("INVITE", 200);

        for (String[] step : new String[][] {{"ACK", "1"}, {"BYE", "2"}}) {
            RequestText r = RequestText.request(step[0], aor())
                    .with("Via: SIP/2.0/UDP " + caller.hostPort() + ";branch=" + UdpPeer.branch())
                    .with("From: " + ok.header("from").orElseThrow())
                    .with("To: " + ok.header("to").orElseThrow())
                    .with("Call-ID: " + ok.header("call-id").orElseThrow())
                    .with("CSeq: " + step[1] + " " + step[0])
                    .with("Max-Forwards: 70");
            caller.send(r.text(), nodeAddress());
            SipText arrived = callee.expectRequest(step[0]);
            assertEquals(calleeContact(callee), arrived.requestUri());
        }
    }

    @Test
    void unknownAddressOfRecordGets404() throws Exception {
        caller.send(invite("sip:nobody-" + UUID.randomUUID() + "@example.com").text(), nodeAddress());

        caller.expectResponse("INVITE", 100);
        caller.expectResponse("INVITE", 404);
    }

    @Test
    void exhaustedMaxForwardsGets483() throws Exception {
        register(callee, "<" + calleeContact(callee) + ">");
        caller.send(invite(aor()).replace("Max-Forwards:", "Max-Forwards: 0").text(), nodeAddress());

        caller.expectResponse("INVITE", 483);
        assertTrue(callee.await(m -> m.method().equals("INVITE"), Duration.ofMillis(300)).isEmpty());
    }

    @Test
    void nonSipRequestUriGets416() throws Exception {
        caller.send(invite("tel:+15550100").text(), nodeAddress());

        caller.expectResponse("INVITE", 416);
    }

    @Test
    void unsupportedProxyRequireGets420ListingTheOptions() throws Exception {
        register(callee, "<" + calleeContact(callee) + ">");
        caller.send(invite(aor()).with("Proxy-Require: teleportation").text(), nodeAddress());

        SipText r = caller.expectResponse("INVITE", 420);
        assertEquals(List.of("teleportation"), r.headers("unsupported"));
    }

    @Test
    void requestThatLoopsBackUnchangedGets482() throws Exception {
        // The contact points back at the node under the same URI, so the
        // request returns with the node's own Via and the same branch hash.
        String self = "sip:" + user + "@" + nodeAddress();
        RequestText r = RequestText.standard("REGISTER", "sip:" + nodeAddress(), caller.hostPort(), self, self,
                "loop-" + UUID.randomUUID(), 1).with("Contact: <" + self + ">");
        caller.send(r.text(), nodeAddress());
        caller.expectResponse("REGISTER", 200);

        RequestText message = RequestText.standard("MESSAGE", self, caller.hostPort(), "sip:alice@example.com",
                self, "msg-" + UUID.randomUUID(), 1);
        caller.send(message.text(), nodeAddress());

        caller.expectResponse("MESSAGE", 482);
    }

    @Test
    void cancelStopsTheCallWith487AndIsAnswered200() throws Exception {
        register(callee, "<" + calleeContact(callee) + ">");
        RequestText invite = invite(aor());
        caller.send(invite.text(), nodeAddress());
        SipText inv = callee.expectRequest("INVITE");
        String toTag = UdpPeer.tag();
        callee.send(inv.response(180, "Ringing", toTag), nodeAddress());
        SipText ringing = caller.expectResponse("INVITE", 180);

        SipText sent = SipText.parse(invite.text());
        RequestText cancel = RequestText.request("CANCEL", sent.requestUri())
                .with("Via: " + sent.header("via").orElseThrow())
                .with("From: " + sent.header("from").orElseThrow())
                .with("To: " + sent.header("to").orElseThrow())
                .with("Call-ID: " + sent.header("call-id").orElseThrow())
                .with("CSeq: 1 CANCEL")
                .with("Max-Forwards: 70");
        caller.send(cancel.text(), nodeAddress());

        caller.expectResponse("CANCEL", 200);
        SipText downstreamCancel = callee.expectRequest("CANCEL");
        callee.send(downstreamCancel.response(200, "OK", toTag), nodeAddress());
        callee.send(inv.response(487, "Request Terminated", toTag), nodeAddress());
        caller.expectResponse("INVITE", 487);
        callee.expectRequest("ACK");
        assertFalse(ringing.header("call-id").isEmpty());
    }

    @Test
    void contactsSharingTheHighestQAreForkedInParallelAndTheFirst2xxWins() throws Exception {
        try (UdpPeer second = new UdpPeer()) {
            register(callee, "<" + calleeContact(callee) + ">;q=0.8", "<" + calleeContact(second) + ">;q=0.8");
            caller.send(invite(aor()).text(), nodeAddress());

            SipText busyBranch = callee.expectRequest("INVITE");
            SipText answerBranch = second.expectRequest("INVITE");
            callee.send(busyBranch.response(486, "Busy Here", UdpPeer.tag()), nodeAddress());
            second.send(answerBranch.response(200, "OK", UdpPeer.tag(), "Contact: <" + calleeContact(second) + ">"),
                    nodeAddress());

            caller.expectResponse("INVITE", 200);
            callee.expectRequest("ACK");
            assertTrue(caller.await(m -> m.isResponse() && m.status() == 486, Duration.ofMillis(300)).isEmpty(),
                    "a 4xx from one branch is not forwarded once another answered");
        }
    }

    @Test
    void lowerQContactsAreTriedOnlyAfterTheHigherOnesFail() throws Exception {
        try (UdpPeer fallback = new UdpPeer()) {
            register(callee, "<" + calleeContact(callee) + ">;q=1.0", "<" + calleeContact(fallback) + ">;q=0.5");
            caller.send(invite(aor()).text(), nodeAddress());

            SipText first = callee.expectRequest("INVITE");
            assertTrue(fallback.await(m -> m.method().equals("INVITE"), Duration.ofMillis(300)).isEmpty(),
                    "the q=0.5 contact waits for the q=1.0 one");
            callee.send(first.response(480, "Temporarily Unavailable", UdpPeer.tag()), nodeAddress());
            SipText second = fallback.expectRequest("INVITE");
            fallback.send(second.response(200, "OK", UdpPeer.tag(), "Contact: <" + calleeContact(fallback) + ">"),
                    nodeAddress());

            caller.expectResponse("INVITE", 200);
        }
    }

    @Test
    void allBranchesFailingForwardsTheBestFinalResponse() throws Exception {
        try (UdpPeer second = new UdpPeer()) {
            register(callee, "<" + calleeContact(callee) + ">", "<" + calleeContact(second) + ">");
            caller.send(invite(aor()).text(), nodeAddress());

            SipText a = callee.expectRequest("INVITE");
            SipText b = second.expectRequest("INVITE");
            callee.send(a.response(503, "Service Unavailable", UdpPeer.tag()), nodeAddress());
            second.send(b.response(486, "Busy Here", UdpPeer.tag()), nodeAddress());

            caller.expectResponse("INVITE", 486);
        }
    }

    @Test
    void pathOfTheRegistrationBecomesRouteWhenForwarding() throws Exception {
        try (UdpPeer edge = new UdpPeer()) {
            String contact = "sip:" + user + "@192.0.2.77:5060";
            RequestText r = RequestText.standard("REGISTER", "sip:example.com", callee.hostPort(), aor(), aor(),
                    "reg-" + UUID.randomUUID(), 1)
                    .with("Path: <sip:edge@" + edge.hostPort() + ";lr>")
                    .with("Contact: <" + contact + ">");
            callee.send(r.text(), nodeAddress());
            callee.expectResponse("REGISTER", 200);

            caller.send(invite(aor()).text(), nodeAddress());

            SipText atEdge = edge.expectRequest("INVITE");
            assertEquals(contact, atEdge.requestUri());
            assertTrue(atEdge.header("route").orElse("").contains("sip:edge@" + edge.hostPort()),
                    atEdge.header("route").toString());
        }
    }
}
