package org.p2psip.balancer;

import org.p2psip.sip.wire.ClusterHeaders;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.balancer.LbWire.StubNode;
import org.p2psip.balancer.LbWire.Udp;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.Eventually;

/** The balancer's metrics text counts, per node, the client requests it really sent there. */
@Timeout(60)
class LbMetricsTextTest {

    private static long value(String text, String series) {
        Matcher m = Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE).matcher(text);
        assertTrue(m.find(), () -> series + " missing from\n" + text);
        return (long) Double.parseDouble(m.group(1));
    }

    @Test
    void requestsSentToANodeAreCountedUnderItsAddressAndAnUnansweredNodeIsDown() throws Exception {
        HostPort silent = new HostPort("127.0.0.1", 9);
        try (StubNode node = new StubNode();
             SipBalancer balancer = SipBalancer.start(BalancerSettings.of(new HostPort("127.0.0.1", 0),
                     List.of(node.hostPort(), silent), BalancingPolicy.CALL_ID).withProbes(Duration.ofMillis(100), 2));
             Udp client = new Udp("127.0.0.2")) {
            Eventually.until(() -> !balancer.nodes().isUp(1), LbWire.WAIT, "the silent node taken down");
            for (int i = 0; i < 3; i++) {
                client.send(LbWire.request("OPTIONS", client.hostPort().toString(), "UDP", "m-" + i, ""),
                        balancer.address());
                client.expectResponse(200);
            }
            String text = BalancerMetricsText.render(balancer, System.nanoTime());
            assertEquals(3, value(text, "p2psip_lb_node_requests_total{node=\"" + node.hostPort() + "\"}"));
            assertEquals(0, value(text, "p2psip_lb_node_requests_total{node=\"" + silent + "\"}"));
            assertEquals(1, value(text, "p2psip_lb_node_up{node=\"" + node.hostPort() + "\"}"));
            assertEquals(0, value(text, "p2psip_lb_node_up{node=\"" + silent + "\"}"));
            assertEquals(3, value(text, "p2psip_lb_requests_forwarded_total"));
            assertTrue(value(text, "p2psip_lb_responses_forwarded_total") >= 3, text);
            assertEquals(0, value(text, "p2psip_lb_messages_dropped_total{reason=\"malformed\"}"));
            assertEquals(0, value(text, "p2psip_lb_messages_dropped_total{reason=\"unauthenticated_budget\"}"));
            Matcher rtt = Pattern.compile("^p2psip_lb_node_probe_rtt_seconds\\{node=\"" + Pattern.quote(node.hostPort()
                    .toString()) + "\"\\} (\\S+)$", Pattern.MULTILINE).matcher(text);
            assertTrue(rtt.find() && Double.parseDouble(rtt.group(1)) < 1, text);
            assertTrue(!text.contains("p2psip_lb_node_probe_rtt_seconds{node=\"" + silent + "\"}"),
                    "a node that never answered has no round trip");
        }
    }

    @Test
    void aWarmingNodeIsUpButNotReadyAndRampsOnceReady() throws Exception {
        try (StubNode node = new StubNode();
             SipBalancer balancer = SipBalancer.start(BalancerSettings.of(new HostPort("127.0.0.1", 0),
                     List.of(node.hostPort()), BalancingPolicy.CALL_ID).withProbes(Duration.ofMillis(100), 2)
                     .withSlowStart(Duration.ofMinutes(10)));
             Udp client = new Udp("127.0.0.2")) {
            String series = "{node=\"" + node.hostPort() + "\"}";
            node.probeResponder = r -> r.response(503, "Service Unavailable", "stub", "Retry-After: 1",
                    ClusterHeaders.READY + ": no");
            Eventually.until(() -> !balancer.nodes().takesNewRequests(0), LbWire.WAIT, "the node warming");
            String warming = BalancerMetricsText.render(balancer, System.nanoTime());
            assertEquals(1, value(warming, "p2psip_lb_node_up" + series));
            assertEquals(0, value(warming, "p2psip_lb_node_ready" + series));
            assertEquals(0.0, share(warming, series));
            client.send(LbWire.request("OPTIONS", client.hostPort().toString(), "UDP", "w-1", ""), balancer.address());
            assertTrue(client.expectResponse(503).text().header("Retry-After").isPresent(),
                    "no node ready: the balancer answers for the cluster");

            node.probeResponder = r -> r.response(200, "OK", "stub");
            Eventually.until(() -> balancer.nodes().takesNewRequests(0), LbWire.WAIT, "the node ready");
            String ramping = BalancerMetricsText.render(balancer, System.nanoTime());
            assertEquals(1, value(ramping, "p2psip_lb_node_ready" + series));
            double share = share(ramping, series);
            assertTrue(share >= 0.1 && share < 0.2, "ten minutes' ramp barely begun: " + share);
            client.send(LbWire.request("OPTIONS", client.hostPort().toString(), "UDP", "w-2", ""), balancer.address());
            client.expectResponse(200);
        }
    }

    private static double share(String text, String series) {
        Matcher m = Pattern.compile("^" + Pattern.quote("p2psip_lb_node_share" + series) + " (\\S+)$",
                Pattern.MULTILINE).matcher(text);
        assertTrue(m.find(), () -> "share missing from\n" + text);
        return Double.parseDouble(m.group(1));
    }
}
