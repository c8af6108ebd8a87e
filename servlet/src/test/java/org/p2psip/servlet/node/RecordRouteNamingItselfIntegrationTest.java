package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.UserCredentials;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.FreePorts;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;
import org.p2psip.servlet.testing.DigestAnswers;
import org.p2psip.servlet.testing.SharedLocalDhtProvider;

/**
 * {@code --record-route} naming the node's own address, which is what a
 * copy of {@code docs/examples/node.conf} gives on one host with no
 * balancer: the node is its own front. Its authenticated INVITEs once got
 * a fresh 407 forever, because the node took itself for the balancer,
 * consumed the caller's credentials and sent the request round again.
 * Now such a Record-Route is this node, as if the flag were not given.
 */
class RecordRouteNamingItselfIntegrationTest {

    private static final String DOMAIN = "p2psip.test";

    @Test
    void anAuthenticatedCallReachesTheCalleeWhenRecordRouteNamesTheNodeItself() throws Exception {
        HostPort self = new HostPort("127.0.0.1", FreePorts.udpAndTcp());
        String tag = UUID.randomUUID().toString().substring(0, 8);
        String alice = "alice-" + tag;
        String bob = "bob-" + tag;
        try (FrontNode node = FrontNode.start(new NodeSettings(self, SharedLocalDhtProvider.NAME, Optional.empty(),
                List.of(), 1, Map.of("store", "rr-self-" + tag), RegistrarPolicy.DEFAULT,
                NodeSettings.DEFAULT_DHT_TIMEOUT, NodeSettings.DEFAULT_SIP_THREADS, Clock.systemUTC(),
                TrustSettings.DEFAULT.withDomains(List.of(DOMAIN)).withClusterSecret("rr-self-secret")
                        .withAliases(List.of(self)).withRecordRoute(self, Optional.empty()),
                ProtectionSettings.DEFAULT, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()));
             UdpPeer caller = new UdpPeer(); UdpPeer callee = new UdpPeer()) {
            node.credentials().put(UserCredentials.fromPassword(aor(alice), "wonderland")).join();
            node.credentials().put(UserCredentials.fromPassword(aor(bob), "builder")).join();

            RequestText register = RequestText.standard("REGISTER", "sip:" + DOMAIN, callee.hostPort(), uri(bob),
                    uri(bob), "reg-" + tag, 1).with("Contact: <sip:" + bob + "@" + callee.hostPort() + ">");
            callee.send(register.text(), self);
            SipText unauthorized = callee.expectResponse("REGISTER", 401);
            callee.send(RequestText.standard("REGISTER", "sip:" + DOMAIN, callee.hostPort(), uri(bob), uri(bob),
                    "reg-" + tag, 2).with("Contact: <sip:" + bob + "@" + callee.hostPort() + ">")
                    .with("Authorization: " + DigestAnswers.answer(DigestAnswers.challengeFor(unauthorized,
                            DigestAlgorithm.SHA_256), bob, "builder", "REGISTER", "sip:" + DOMAIN, 1)).text(), self);
            callee.expectResponse("REGISTER", 200);

            String callId = "call-" + tag;
            caller.send(invite(caller, alice, bob, callId, 1, self).text(), self);
            SipText challenge = caller.expectResponse("INVITE", 407);
            caller.send(invite(caller, alice, bob, callId, 2, self).with("Proxy-Authorization: "
                    + DigestAnswers.answer(DigestAnswers.challengeFor(challenge, DigestAlgorithm.SHA_256), alice,
                            "wonderland", "INVITE", uri(bob), 1)).text(), self);

            SipText invite = callee.expectRequest("INVITE");
            assertEquals("INVITE sip:" + bob + "@" + callee.hostPort() + " SIP/2.0", invite.firstLine());
            List<String> recorded = invite.headers("record-route");
            assertEquals(1, recorded.size(), recorded.toString());
            assertTrue(recorded.get(0).contains("sip:" + self + ";"), recorded.toString());
        }
    }

    /** Alice's INVITE to bob through her outbound proxy, which is the node. */
    private static RequestText invite(UdpPeer caller, String alice, String bob, String callId, long cseq,
                                      HostPort proxy) {
        return RequestText.standard("INVITE", uri(bob), caller.hostPort(), uri(alice), uri(bob), callId, cseq)
                .with("Contact: <sip:" + alice + "@" + caller.hostPort() + ">")
                .with("Route: <sip:" + proxy + ";lr>");
    }

    private static AddressOfRecord aor(String user) {
        return AddressOfRecord.parse(uri(user));
    }

    private static String uri(String user) {
        return "sip:" + user + "@" + DOMAIN;
    }
}
