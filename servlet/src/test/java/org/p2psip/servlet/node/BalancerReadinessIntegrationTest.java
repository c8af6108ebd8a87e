package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.balancer.BalancerSettings;
import org.p2psip.balancer.BalancingPolicy;
import org.p2psip.balancer.SipBalancer;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.metrics.MetricsServer;

/**
 * A balancer whose only node is warming up has nowhere to send new
 * requests, and its {@code GET /ready} says so until the node is ready.
 */
@Timeout(60)
class BalancerReadinessIntegrationTest {

    private FrontNode node;
    private SipBalancer balancer;
    private MetricsServer metrics;

    @AfterEach
    void stop() {
        if (metrics != null) {
            metrics.close();
        }
        if (balancer != null) {
            balancer.close();
        }
        if (node != null) {
            node.close();
        }
    }

    private int ready() throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://" + metrics.address()
                + "/ready")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    /** Polls {@code /ready} until it answers {@code status}; the last answer if the deadline passes first. */
    private int awaitReady(int status) throws Exception {
        Instant deadline = Instant.now().plusSeconds(10);
        int last = ready();
        while (last != status && Instant.now().isBefore(deadline)) {
            Thread.sleep(50);
            last = ready();
        }
        return last;
    }

    @Test
    void theBalancerIsReadyOnceItsNodeIs() throws Exception {
        NodeReadiness readiness = NodeReadiness.warming(System.nanoTime());
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("127.0.0.1")), readiness);
        balancer = SipBalancer.start(BalancerSettings.of(new HostPort("127.0.0.1", 0), List.of(node.sipAddress()),
                BalancingPolicy.AOR).withProbes(Duration.ofMillis(100), 2));
        metrics = MetricsServer.start(new HostPort("127.0.0.1", 0), balancer);

        assertEquals(503, awaitReady(503), "the node answers its probes 503 with P2psip-Ready: no");

        readiness.markReady(System.nanoTime());

        assertEquals(200, awaitReady(200));
    }
}
