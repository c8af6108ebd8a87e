package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.KeyRangeSet;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;

/**
 * A node tells the balancer it record-routes through, and only it, which
 * keys it owns and which domains it serves, in its answer to an OPTIONS.
 */
class OwnershipAnswerIntegrationTest {

    private FrontNode node;
    private UdpPeer balancer;
    private UdpPeer stranger;

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
        balancer.close();
        stranger.close();
    }

    private void start() throws Exception {
        balancer = new UdpPeer();
        stranger = new UdpPeer();
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("example.com")
                        .withAliases(List.of(HostPort.parse(balancer.hostPort())))
                        .withRecordRoute(HostPort.parse(balancer.hostPort()), Optional.empty())));
    }

    private SipText ping(UdpPeer from) throws Exception {
        HostPort self = node.sipAddress();
        RequestText options = RequestText.standard("OPTIONS", "sip:" + self, from.hostPort(),
                "sip:probe@example.com", "sip:" + self, "o-" + UUID.randomUUID(), 1);
        from.send(options.text(), self);
        return from.expect(SipText::isResponse, "the answer to the OPTIONS");
    }

    @Test
    void theBalancerLearnsTheOwnedRangesAndTheServedDomains() throws Exception {
        start();
        SipText ok = ping(balancer);

        assertEquals(200, ok.status());
        assertEquals(KeyRangeSet.ALL, KeyRangeSet.parse(ok.header("p2psip-owns").orElseThrow()),
                "the one-process DHT owns every key");
        assertEquals(Optional.of("example.com"), ok.header("p2psip-domains"));
        assertTrue(ok.header("p2psip-aliases").orElse("").contains(balancer.hostPort()));
    }

    @Test
    void anyoneElseGetsThePlainAnswer() throws Exception {
        start();
        SipText ok = ping(stranger);

        assertEquals(200, ok.status());
        assertEquals(Optional.empty(), ok.header("p2psip-owns"), "no ranges to be reflected at a spoofed source");
        assertEquals(Optional.empty(), ok.header("p2psip-domains"));
    }
}
