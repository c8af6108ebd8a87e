package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;

/** A node at its registration cap refuses new bindings with 503 and still lets REGISTERs shrink what it holds. */
class RegistrationCapIntegrationTest {

    private static FrontNode node;

    @BeforeAll
    static void startNode() throws Exception {
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("example.com"))
                .withProtection(ProtectionSettings.DEFAULT.withLimits(ProtectionSettings.MAX_DATAGRAM_BYTES, 2)));
    }

    @AfterAll
    static void stopNode() {
        node.close();
    }

    private static SipText register(UdpPeer ua, String user, String expires) throws Exception {
        String aor = "sip:" + user + "@example.com";
        RequestText r = RequestText.standard("REGISTER", "sip:example.com", ua.hostPort(), aor, aor,
                "cap-" + UUID.randomUUID(), 1).with("Contact: <sip:" + user + "@" + ua.hostPort() + ">")
                .with("Expires: " + expires);
        ua.send(r.text(), node.sipAddress());
        return ua.expect(SipText::isResponse, "a response to " + user + "'s REGISTER");
    }

    @Test
    void pastTheCapNewBindingsGet503WithRetryAfterAndRemovalsStillPass() throws Exception {
        try (UdpPeer ua = new UdpPeer()) {
            assertEquals(200, register(ua, "cap-a", "600").status());
            assertEquals(200, register(ua, "cap-b", "600").status());

            SipText refused = register(ua, "cap-c", "600");
            assertEquals(503, refused.status());
            assertTrue(refused.header("retry-after").isPresent(), "no Retry-After");

            assertEquals(200, register(ua, "cap-a", "0").status());
            assertEquals(200, register(ua, "cap-c", "600").status());
        }
    }
}
