package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Clock;
import java.time.Duration;
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
import org.p2psip.core.testing.SipText;
import org.p2psip.servlet.testing.StalledDhtProvider;
import org.p2psip.core.testing.UdpPeer;

/** A DHT that never answers must still get every transaction answered: 500 after the timeout. */
class StalledDhtIntegrationTest {

    private static FrontNode node;

    @BeforeAll
    static void startNode() throws Exception {
        node = FrontNode.start(new NodeSettings(new HostPort("127.0.0.1", 0), StalledDhtProvider.NAME,
                Optional.empty(), List.of(), 1, Map.of(), RegistrarPolicy.DEFAULT, Duration.ofMillis(300),
                NodeSettings.DEFAULT_SIP_THREADS, Clock.systemUTC(), TrustSettings.open("example.com"),
                ProtectionSettings.DEFAULT, Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty()));
    }

    @AfterAll
    static void stopNode() {
        node.close();
    }

    @Test
    void registerIsAnswered500WhenTheDhtDoesNotAnswerInTime() throws Exception {
        try (UdpPeer ua = new UdpPeer()) {
            String aor = "sip:slow-" + UUID.randomUUID() + "@example.com";
            ua.send(RequestText.standard("REGISTER", "sip:example.com", ua.hostPort(), aor, aor, "s-" + UUID.randomUUID(), 1)
                    .with("Contact: <sip:slow@192.0.2.1>").text(), node.sipAddress());

            SipText r = ua.expectResponse("REGISTER", 500);
            assertEquals("Location service timed out", r.reason());
        }
    }

    @Test
    void inviteIsAnswered100Then500WhenTheLookupDoesNotAnswerInTime() throws Exception {
        try (UdpPeer ua = new UdpPeer()) {
            String aor = "sip:slow-" + UUID.randomUUID() + "@example.com";
            ua.send(RequestText.standard("INVITE", aor, ua.hostPort(), "sip:a@example.com", aor, "i-" + UUID.randomUUID(), 1)
                    .text(), node.sipAddress());

            ua.expectResponse("INVITE", 100);
            ua.expectResponse("INVITE", 500);
        }
    }
}
