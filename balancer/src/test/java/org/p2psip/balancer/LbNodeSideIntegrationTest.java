package org.p2psip.balancer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.balancer.LbWire.StubNode;
import org.p2psip.balancer.LbWire.Udp;
import org.p2psip.core.net.HostPort;

/**
 * The balancer's two UDP sockets on real sockets: clients' requests arrive
 * at the public one; requests to the nodes leave from the node-side one,
 * whose address their Via names, so that the nodes' answers
 * (sent to the Via, RFC 3261 §18.2.2) come back there instead of queueing
 * behind a flood of clients' requests; each answer reaches the client from
 * the public address it wrote to.
 */
@Timeout(60)
class LbNodeSideIntegrationTest {

    private StubNode node;
    private SipBalancer balancer;

    @BeforeEach
    void start() throws Exception {
        node = new StubNode();
        balancer = SipBalancer.start(BalancerSettings.of(new HostPort("127.0.0.1", 0), List.of(node.hostPort()),
                BalancingPolicy.CALL_ID).withProbes(Duration.ofMillis(200), 3));
    }

    @AfterEach
    void stop() {
        if (balancer != null) {
            balancer.close();
        }
        node.close();
    }

    @Test
    void requestLeavesFromTheNodeSideAndItsAnswerReachesThePhoneFromThePublicAddress() throws Exception {
        // The node answers by hand, to its top Via's sent-by, as a SIP stack does; not to the datagram's source.
        node.responder = r -> null;
        HostPort side = balancer.nodeSideAddress();
        assertNotEquals(balancer.address().port(), side.port());
        try (Udp phone = new Udp("127.0.0.2")) {
            String callId = "side-" + LbWire.callId();
            phone.send(LbWire.request("REGISTER", phone.hostPort().toString(), "UDP", callId, ""),
                    balancer.address());
            Udp.Received atNode = node.expect(m -> callId.equals(m.header("Call-ID").orElse("")), "the REGISTER");
            assertEquals(side.port(), atNode.from().getPort(), "sent from the node-side socket");
            String via = atNode.text().headers("Via").get(0);
            assertTrue(via.startsWith("SIP/2.0/UDP 127.0.0.1:" + side.port() + ";"), via);

            node.send(atNode.text().response(200, "OK", "stub"), side);
            Udp.Received answer = phone.expectResponse(200);
            assertEquals(balancer.address().port(), answer.from().getPort(),
                    "the phone hears from the address it wrote to");
            assertEquals(1, answer.text().headers("Via").size(), "the balancer's Via came off");
        }
    }

    @Test
    void anAnswerSentToThePublicAddressIsStillRelayed() throws Exception {
        // A node that answers where the datagram's Via used to point (the balancer's advertised address).
        node.responder = r -> null;
        try (Udp phone = new Udp("127.0.0.2")) {
            String callId = "public-" + LbWire.callId();
            phone.send(LbWire.request("OPTIONS", phone.hostPort().toString(), "UDP", callId, ""),
                    balancer.address());
            Udp.Received atNode = node.expect(m -> callId.equals(m.header("Call-ID").orElse("")), "the OPTIONS");
            node.send(atNode.text().response(200, "OK", "stub"), balancer.address());
            phone.expectResponse(200);
        }
    }

    @Test
    void aNodeWhoseProbesGoUnansweredStaysUpWhileItAnswersRequestsToTheNodeSide() throws Exception {
        // A node so busy that its OPTIONS waits behind the requests it is answering (probes every 200 ms;
        // three silent rounds would take it out).
        node.probeResponder = r -> null;
        try (Udp phone = new Udp("127.0.0.2")) {
            long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            int sent = 0;
            while (System.nanoTime() < until) {
                phone.send(LbWire.request("OPTIONS", phone.hostPort().toString(), "UDP", "busy-" + sent++
                        + "-" + LbWire.callId(), ""), balancer.address());
                Thread.sleep(50);
            }
            assertTrue(balancer.nodes().isUp(0), "its answers came back to the node-side socket: alive");
        }
    }

    @Test
    void probesComeFromThePublicAddressWhichTheNodesTellTheirKeysTo() throws Exception {
        // A node tells its key ranges only to probes from the balancer's address (the one it record-routes
        // through), and its stack answers to the datagram's source: both are the public socket.
        Udp.Received probe = node.expect(m -> !m.isResponse() && m.header("Call-ID").orElse("").startsWith("hc-"),
                "a probe");
        assertEquals(balancer.address().port(), probe.from().getPort());
        assertTrue(probe.text().headers("Via").get(0)
                .startsWith("SIP/2.0/UDP 127.0.0.1:" + balancer.address().port() + ";"));
        long deadline = System.nanoTime() + LbWire.WAIT.toNanos();
        while (balancer.liveNodes().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(List.of(node.hostPort()), balancer.liveNodes(), "the stub's answers reached the checker");
    }
}
