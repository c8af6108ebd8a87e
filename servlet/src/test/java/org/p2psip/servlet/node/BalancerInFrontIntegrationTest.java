package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.balancer.BalancerSettings;
import org.p2psip.balancer.BalancerStartException;
import org.p2psip.balancer.BalancingPolicy;
import org.p2psip.balancer.SipBalancer;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.Eventually;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;

/**
 * The balancer on real sockets in front of two in-process front nodes.
 * Each node has its own {@code local} DHT, so a registration is only
 * found again if the {@code aor} policy sends every request for that AOR
 * to the same node.
 */
@Timeout(60)
class BalancerInFrontIntegrationTest {

    private final List<FrontNode> nodes = new ArrayList<>();
    private SipBalancer balancer;
    private HostPort lb;

    @BeforeEach
    void start() throws Exception {
        for (int i = 0; i < 2; i++) {
            nodes.add(FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("127.0.0.1"))));
        }
        balancer = SipBalancer.start(BalancerSettings.of(new HostPort("127.0.0.1", 0),
                nodes.stream().map(FrontNode::sipAddress).toList(), BalancingPolicy.AOR)
                .withProbes(Duration.ofMillis(100), 2));
        lb = balancer.address();
    }

    @AfterEach
    void stop() {
        if (balancer != null) {
            balancer.close();
        }
        nodes.forEach(FrontNode::close);
    }

    @Test
    void udpRegisterThroughTheBalancerIsFoundAgainUnderAnotherCallId() throws Exception {
        try (UdpPeer phone = new UdpPeer()) {
            String aor = "sip:alice-" + UUID.randomUUID().toString().substring(0, 6) + "@" + lb;
            phone.send(register(phone, aor, "sip:alice@" + phone.hostPort()), lb);
            SipText ok = phone.expectResponse("REGISTER", 200);
            assertEquals(1, ok.headers("Via").size(), "the balancer's Via was taken off: " + ok);

            phone.send(register(phone, aor, null), lb);
            SipText fetched = phone.expectResponse("REGISTER", 200);
            assertTrue(fetched.header("Contact").orElse("").contains("sip:alice@" + phone.hostPort()), fetched.toString());
        }
        assertTrue(balancer.counters().requestsForwarded() >= 2);
    }

    @Test
    void tcpClientGetsItsResponseOnItsOwnConnection() throws Exception {
        try (Socket s = new Socket("127.0.0.1", lb.port())) {
            s.setSoTimeout(5000);
            String aor = "sip:tcp-user@" + lb;
            String text = RequestText.standard("REGISTER", "sip:" + lb, "127.0.0.1:" + s.getLocalPort(), aor, aor,
                    "tcp-" + UUID.randomUUID(), 1)
                    .replace("Via:", "Via: SIP/2.0/TCP 127.0.0.1:" + s.getLocalPort() + ";branch=" + UdpPeer.branch())
                    .with("Contact: <sip:tcp-user@127.0.0.1:" + s.getLocalPort() + ";transport=tcp>").text();
            OutputStream out = s.getOutputStream();
            out.write("\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.write(text.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String response = readMessage(s.getInputStream());
            // The double CRLF is an RFC 5626 ping: its CRLF pong comes first.
            assertTrue(response.startsWith("\r\nSIP/2.0 200"), response);
        }
    }

    @Test
    void deadNodesAreTakenOutAndWithNoneLeftClientsGet503() throws Exception {
        nodes.get(0).close();
        await(() -> balancer.liveNodes().equals(List.of(nodes.get(1).sipAddress())), "node 0 taken out");
        try (UdpPeer phone = new UdpPeer()) {
            for (int i = 0; i < 5; i++) {
                phone.send(register(phone, "sip:survivor" + i + "@" + lb, "sip:s@" + phone.hostPort()), lb);
                phone.expectResponse("REGISTER", 200);
            }
            nodes.get(1).close();
            await(() -> balancer.liveNodes().isEmpty(), "every node taken out");
            phone.send(register(phone, "sip:late@" + lb, "sip:s@" + phone.hostPort()), lb);
            SipText busy = phone.expectResponse("REGISTER", 503);
            assertTrue(busy.header("Retry-After").isPresent(), busy.toString());
        }
    }

    @Test
    void aBusyPortIsAOneLineStartError() {
        BalancerStartException e = assertThrows(BalancerStartException.class, () -> SipBalancer.start(
                BalancerSettings.of(lb, List.of(nodes.get(0).sipAddress()), BalancingPolicy.CALL_ID)));
        assertTrue(e.getMessage().contains("already in use"), e.getMessage());
        assertTrue(!e.getMessage().contains("\n"));
    }

    private static String register(UdpPeer phone, String aor, String contact) {
        RequestText r = RequestText.standard("REGISTER", "sip:" + aor.substring(aor.indexOf('@') + 1),
                phone.hostPort(), aor, aor, "reg-" + UUID.randomUUID(), 1);
        if (contact != null) {
            r.with("Contact: <" + contact + ">").with("Expires: 600");
        }
        return r.text();
    }

    private static String readMessage(InputStream in) throws Exception {
        StringBuilder b = new StringBuilder();
        while (!b.toString().contains("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            b.append((char) c);
        }
        return b.toString();
    }

    private static void await(BooleanSupplier condition, String what) {
        Eventually.until(condition, Duration.ofSeconds(10), what);
    }
}
