package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;

/**
 * A node bound to every interface writes the address it was told to
 * advertise in Via and Record-Route, and refuses to start without one.
 * 127.0.0.7 stands for another host's view of this one: the wildcard bind
 * receives what is sent to it, and it differs from the 127.0.0.1 a guess
 * would produce.
 */
class AdvertiseIntegrationTest {

    private static final String ADVERTISED = "127.0.0.7";

    @Test
    void aWildcardBindWithoutAdvertiseIsRefusedNamingTheFlag() {
        NodeStartException e = assertThrows(NodeStartException.class,
                () -> FrontNode.start(NodeSettings.local(new HostPort("0.0.0.0", 0))
                        .withTrust(TrustSettings.open("example.com"))));
        assertTrue(e.getMessage().contains("--advertise"), e.getMessage());
    }

    @Test
    void forwardedRequestsCarryTheAdvertisedAddressInViaAndRecordRoute() throws Exception {
        try (FrontNode node = FrontNode.start(NodeSettings.local(new HostPort("0.0.0.0", 0))
                .withTrust(TrustSettings.open("example.com")).withAdvertise(new HostPort(ADVERTISED, 0)));
             UdpPeer caller = new UdpPeer(); UdpPeer callee = new UdpPeer()) {
            HostPort reach = node.sipAddress();
            assertEquals(ADVERTISED, reach.host(), "the node is known by the advertised host");

            String user = "adv-" + UUID.randomUUID().toString().substring(0, 8);
            String aor = "sip:" + user + "@example.com";
            caller.send(RequestText.standard("REGISTER", "sip:example.com", callee.hostPort(), aor, aor,
                    "reg-" + user, 1).with("Contact: <sip:" + user + "@" + callee.hostPort() + ">").text(), reach);
            assertEquals(200, caller.expectResponse("REGISTER", 200).status());

            caller.send(RequestText.standard("INVITE", aor, caller.hostPort(), "sip:caller@elsewhere.test", aor,
                    "inv-" + user, 1).with("Contact: <sip:caller@" + caller.hostPort() + ">").text(), reach);
            SipText invite = callee.expectRequest("INVITE");

            String via = invite.headers("via").get(0);
            assertTrue(via.contains(ADVERTISED + ":" + reach.port()), via);
            String recordRoute = invite.headers("record-route").get(0);
            assertTrue(recordRoute.contains("sip:" + ADVERTISED + ":" + reach.port()), recordRoute);
        }
    }
}
