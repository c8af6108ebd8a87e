package org.p2psip.balancer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.balancer.LbWire.StubNode;
import org.p2psip.balancer.LbWire.Udp;
import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.DigestChallenge;
import org.p2psip.core.auth.NonceStatus;
import org.p2psip.core.auth.StatelessNonces;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;

/**
 * The balancer answers a REGISTER without credentials with the nodes' own
 * challenge (RFC 3261 §10.3, §22.4), on real sockets, over UDP and TCP;
 * everything it cannot be sure of still reaches the node.
 */
@Timeout(60)
class LbEdgeChallengeTest {

    private static final byte[] SECRET = "the cluster's secret".getBytes(StandardCharsets.UTF_8);
    private static final StatelessNonces NODES_NONCES = new StatelessNonces(SECRET, Duration.ofMinutes(5));
    private static final String PHONE = "127.0.0.2";

    private final List<AutoCloseable> open = new ArrayList<>();
    private StubNode node;
    private SipBalancer balancer;

    private HostPort start() throws Exception {
        node = new StubNode();
        open.add(node);
        EdgeChallenges edge = new EdgeChallenges(ServedDomains.of("example.com"),
                List.of(DigestAlgorithm.SHA_256, DigestAlgorithm.MD5), new StatelessNonces(SECRET, Duration.ofMinutes(5)));
        balancer = SipBalancer.start(BalancerSettings.of(new HostPort("127.0.0.1", 0), List.of(node.hostPort()),
                BalancingPolicy.CALL_ID).withProbes(Duration.ofMillis(200), 3).withEdgeChallenges(edge));
        return balancer.address();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        if (balancer != null) {
            balancer.close();
        }
    }

    private Udp phone() throws Exception {
        Udp u = new Udp(PHONE);
        open.add(u);
        return u;
    }

    private static String register(String requestUri, String aor, String sentBy, String transport, String callId,
                                   String extra) {
        return "REGISTER " + requestUri + " SIP/2.0\r\n"
                + "Via: SIP/2.0/" + transport + " " + sentBy + ";branch=" + UdpPeer.branch() + ";rport\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <" + aor + ">;tag=" + UdpPeer.tag() + "\r\n"
                + "To: <" + aor + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 REGISTER\r\n"
                + "Contact: <sip:alice@" + sentBy + ">\r\n"
                + "User-Agent: test phone\r\n"
                + extra
                + "Content-Length: 0\r\n\r\n";
    }

    /** The 401's challenges: what a node would offer, in its order, under one nonce any node accepts. */
    private static void assertNodesChallenge(SipText response) {
        assertEquals(401, response.status());
        List<String> values = response.rawHeaders("WWW-Authenticate");
        assertEquals(2, values.size(), values.toString());
        DigestChallenge first = DigestChallenge.parse(values.get(0)).orElseThrow();
        DigestChallenge second = DigestChallenge.parse(values.get(1)).orElseThrow();
        assertEquals(DigestAlgorithm.SHA_256, first.algorithm(), "the nodes' preferred algorithm first");
        assertEquals(DigestAlgorithm.MD5, second.algorithm());
        assertEquals("example.com", first.realm());
        assertEquals(first.nonce(), second.nonce());
        assertInstanceOf(NonceStatus.Fresh.class, NODES_NONCES.check(first.nonce(), "example.com", Instant.now()),
                "a node holding the secret accepts the nonce");
        assertTrue(DigestChallenge.parameters(values.get(0)).get("qop").contains("auth"));
        assertTrue(response.tag("To").isPresent(), "a final response carries a To tag");
    }

    @Test
    void aRegisterWithoutCredentialsGetsTheNodesChallengeFromTheBalancer() throws Exception {
        HostPort lb = start();
        Udp phone = phone();

        phone.send(register("sip:example.com", "sip:alice@example.com", phone.hostPort().toString(), "UDP", "edge-1",
                ""), lb);

        assertNodesChallenge(phone.expectResponse(401).text());
        assertEquals(List.of(), node.requests("edge-1"), "the node never saw it");
        assertEquals(1, balancer.counters().challenged());
    }

    @Test
    void aPhoneThatRegistersAtTheBalancersAddressIsChallengedInTheDefaultDomain() throws Exception {
        HostPort lb = start();
        Udp phone = phone();

        phone.send(register("sip:" + lb, "sip:alice@" + lb, phone.hostPort().toString(), "UDP", "edge-alias", ""), lb);

        assertNodesChallenge(phone.expectResponse(401).text());
        assertEquals(List.of(), node.requests("edge-alias"));
    }

    @Test
    void aRegisterWithCredentialsAndWhatTheBalancerCannotJudgeReachTheNode() throws Exception {
        HostPort lb = start();
        Udp phone = phone();
        String sentBy = phone.hostPort().toString();

        phone.send(register("sip:example.com", "sip:alice@example.com", sentBy, "UDP", "pass-credentials",
                "Authorization: Digest username=\"alice\", realm=\"example.com\", nonce=\"n\", uri=\"sip:example.com\", "
                        + "response=\"00\"\r\n"), lb);
        phone.send(register("sip:other.org", "sip:alice@other.org", sentBy, "UDP", "pass-domain", ""), lb);
        phone.send(register("sip:example.com", "sip:alice@other.org", sentBy, "UDP", "pass-aor", ""), lb);
        phone.send(register("sip:example.com", "sip:alice@example.com", sentBy, "UDP", "pass-require",
                "Require: gruu\r\n"), lb);

        for (String callId : List.of("pass-credentials", "pass-domain", "pass-aor", "pass-require")) {
            phone.expect(m -> m.isResponse() && m.header("Call-ID").orElse("").equals(callId), "the node's answer to "
                    + callId);
            assertEquals(1, node.requests(callId).size(), callId + " reached the node");
        }
        assertEquals(0, balancer.counters().challenged());
    }

    @Test
    void aRegisterOverTcpIsChallengedOnItsConnection() throws Exception {
        HostPort lb = start();
        try (Socket s = LbWire.connect(PHONE, lb)) {
            String sentBy = PHONE + ":" + s.getLocalPort();
            OutputStream out = s.getOutputStream();
            out.write(register("sip:example.com", "sip:bob@EXAMPLE.com", sentBy, "TCP", "edge-tcp", "")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();

            String response = LbWire.readMessage(s.getInputStream());

            assertNotNull(response);
            assertNodesChallenge(SipText.parse(response));
            assertEquals(List.of(), node.requests("edge-tcp"));
            assertFalse(s.isClosed());
        }
    }
}
