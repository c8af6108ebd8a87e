package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.servlet.testing.SharedLocalDhtProvider;
import org.p2psip.core.testing.SipText;
import org.p2psip.servlet.testing.Steady;
import org.p2psip.core.testing.UdpPeer;

/**
 * Forking cannot be turned into a flood: two AORs on two nodes whose
 * contacts point at each other, and an AOR whose many contacts all sit at
 * one host (the amplification the trust issue measured: 24,318 INVITEs
 * from one, and 70 INVITEs at one host).
 */
class ForkingLimitsIntegrationTest {

    private static FrontNode node1;
    private static FrontNode node2;

    @BeforeAll
    static void startNodes() throws Exception {
        String store = "fork-" + UUID.randomUUID();
        node1 = FrontNode.start(settings(store));
        node2 = FrontNode.start(settings(store));
    }

    private static NodeSettings settings(String store) {
        return new NodeSettings(new HostPort("127.0.0.1", 0), SharedLocalDhtProvider.NAME, Optional.empty(), List.of(),
                1, Map.of("store", store), new RegistrarPolicy(60, 3600, 86_400, 20), NodeSettings.DEFAULT_DHT_TIMEOUT,
                NodeSettings.DEFAULT_SIP_THREADS, Clock.systemUTC(), TrustSettings.open("example.com"),
                ProtectionSettings.DEFAULT, Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty());
    }

    @AfterAll
    static void stopNodes() {
        node1.close();
        node2.close();
    }

    private static void register(UdpPeer ua, FrontNode node, String user, List<String> contacts) throws Exception {
        String aor = "sip:" + user + "@example.com";
        RequestText r = RequestText.standard("REGISTER", "sip:example.com", ua.hostPort(), aor, aor,
                "reg-" + UUID.randomUUID(), 1);
        contacts.forEach(c -> r.with("Contact: <" + c + ">"));
        ua.send(r.text(), node.sipAddress());
        assertEquals(200, ua.expectResponse("REGISTER", 200).status());
    }

    private static long forwarded() {
        return node1.forwardedRequests() + node2.forwardedRequests();
    }

    @Test
    void twoAorsWhoseContactsPointAtEachOtherMakeFewerThanOneHundredInvites() throws Exception {
        String tag = UUID.randomUUID().toString().substring(0, 6);
        String a = "loop-a-" + tag;
        String b = "loop-b-" + tag;
        try (UdpPeer ua = new UdpPeer()) {
            register(ua, node1, a, List.of(1, 2, 3, 4).stream().map(i -> "sip:" + b + "@" + node2.sipAddress() + ";x=" + i).toList());
            register(ua, node1, b, List.of(1, 2, 3, 4).stream().map(i -> "sip:" + a + "@" + node1.sipAddress() + ";x=" + i).toList());
            long before = forwarded();

            String target = "sip:" + a + "@example.com";
            ua.send(RequestText.standard("INVITE", target, ua.hostPort(), "sip:caller@elsewhere.test", target,
                    "loop-" + tag, 1).with("Contact: <sip:caller@" + ua.hostPort() + ">").text(), node1.sipAddress());
            SipText answer = ua.expect(m -> m.isResponse() && m.status() >= 300, "the final answer to the looping INVITE");
            long settled = Steady.await(ForkingLimitsIntegrationTest::forwarded, Duration.ofSeconds(1),
                    Duration.ofSeconds(20));

            assertTrue(answer.status() == 482 || answer.status() == 483 || answer.status() == 404, answer.firstLine());
            assertTrue(settled - before < 100, (settled - before) + " requests forwarded for one INVITE");
            assertTrue(settled - before >= 4, "the first node forked to every contact");
        }
    }

    @Test
    void manyContactsAtOneHostGetOnlyAFewBranches() throws Exception {
        String user = "many-" + UUID.randomUUID().toString().substring(0, 6);
        try (UdpPeer ua = new UdpPeer(); UdpPeer host = new UdpPeer()) {
            register(ua, node2, user, java.util.stream.IntStream.range(0, 10)
                    .mapToObj(i -> "sip:" + user + "-" + i + "@" + host.hostPort()).toList());
            String target = "sip:" + user + "@example.com";
            ua.send(RequestText.standard("INVITE", target, ua.hostPort(), "sip:caller@elsewhere.test", target,
                    "many-" + user, 1).with("Contact: <sip:caller@" + ua.hostPort() + ">").text(), node2.sipAddress());

            Set<String> branches = new HashSet<>();
            Optional<SipText> next;
            while ((next = host.await(m -> !m.isResponse() && m.method().equals("INVITE"), Duration.ofMillis(1500))).isPresent()) {
                SipText invite = next.get();
                if (branches.add(invite.headers("via").get(0))) {
                    host.send(invite.response(486, "Busy Here", "t" + branches.size()), node2.sipAddress());
                }
            }

            assertEquals(TrustSettings.DEFAULT_MAX_BRANCHES_PER_HOST, branches.size(), branches.toString());
            assertEquals(486, ua.expectResponse("INVITE", 486).status());
        }
    }
}
