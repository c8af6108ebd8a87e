package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.sip.wire.ClusterHeaders;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;

/**
 * A node that has not finished warming up says so to everyone who asks —
 * OPTIONS, {@code GET /ready} on its metrics and admin endpoints, the
 * readiness gauge — and says the opposite as soon as it is marked ready.
 */
class ReadinessIntegrationTest {

    private static final String SECRET = "readiness-test-secret";

    private FrontNode node;
    private UdpPeer balancer;

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
        if (balancer != null) {
            balancer.close();
        }
    }

    private NodeReadiness startWarming() throws Exception {
        balancer = new UdpPeer();
        NodeReadiness readiness = NodeReadiness.warming(System.nanoTime());
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("example.com")
                        .withAliases(List.of(HostPort.parse(balancer.hostPort())))
                        .withRecordRoute(HostPort.parse(balancer.hostPort()), Optional.empty())
                        .withClusterSecret(SECRET)
                        .withAdmin(new HostPort("127.0.0.1", 0)))
                .withMetrics(new HostPort("127.0.0.1", 0)), readiness);
        return readiness;
    }

    private SipText ping() throws Exception {
        HostPort self = node.sipAddress();
        RequestText options = RequestText.standard("OPTIONS", "sip:" + self, balancer.hostPort(),
                "sip:probe@example.com", "sip:" + self, "o-" + UUID.randomUUID(), 1);
        balancer.send(options.text(), self);
        return balancer.expect(SipText::isResponse, "the answer to the OPTIONS");
    }

    private static HttpResponse<String> get(HostPort at, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://" + at + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aWarmingNodeAnswersOptionsWith503ThatTheBalancerTellsFromShedding() throws Exception {
        startWarming();

        SipText answer = ping();

        assertEquals(503, answer.status());
        assertEquals(Optional.of("no"), answer.header(ClusterHeaders.READY.toLowerCase()));
        assertTrue(answer.header("retry-after").isPresent(), "a 503 says when to come back (RFC 3261 §21.5.4)");
        assertEquals(Optional.empty(), answer.header("p2psip-owns"), "no claim on keys while warming");
    }

    @Test
    void aNodeMarkedReadyAnswersOptionsWith200AndItsClaim() throws Exception {
        NodeReadiness readiness = startWarming();
        readiness.markReady(System.nanoTime());

        SipText answer = ping();

        assertEquals(200, answer.status());
        assertTrue(answer.header("p2psip-owns").isPresent());
        assertEquals(Optional.empty(), answer.header(ClusterHeaders.READY.toLowerCase()));
    }

    @Test
    void readyEndpointsAndGaugeFollowTheNode() throws Exception {
        NodeReadiness readiness = startWarming();
        HostPort metrics = node.metricsAddress().orElseThrow();
        HostPort admin = node.adminAddress().orElseThrow();

        assertEquals(503, get(metrics, "/ready").statusCode());
        assertEquals(503, get(admin, "/ready").statusCode(), "unsigned: a supervisor's probe has no secret");
        String before = get(metrics, "/metrics").body();
        assertTrue(before.contains("\np2psip_node_ready 0\n"), before);
        assertTrue(!before.contains("p2psip_node_time_to_ready_seconds "), "no time to ready before it is");

        readiness.markReady(System.nanoTime());

        assertEquals(200, get(metrics, "/ready").statusCode());
        assertEquals(200, get(admin, "/ready").statusCode());
        String after = get(metrics, "/metrics").body();
        assertTrue(after.contains("\np2psip_node_ready 1\n"), after);
        assertTrue(after.contains("\np2psip_node_time_to_ready_seconds "), after);
    }

    @Test
    void aNodeStartedWithoutAWarmUpIsReadyAtOnce() throws Exception {
        balancer = new UdpPeer();
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("example.com")));

        assertTrue(node.readiness().isReady());
        assertEquals(200, ping().status());
    }
}
