package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.metrics.DhtOperation;
import org.p2psip.core.metrics.DhtOutcome;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.UdpPeer;

/** A node started with a metrics address times its DHT and serves the figures; one without serves nothing. */
class MetricsEndpointIntegrationTest {

    private static FrontNode node;

    @BeforeAll
    static void startNode() throws Exception {
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("example.com"))
                .withMetrics(new HostPort("127.0.0.1", 0)));
    }

    @AfterAll
    static void stopNode() {
        node.close();
    }

    @Test
    void aRegisterShowsUpAsOneRequestOneSuccessfulWriteAndOneStoredEntryInTheScrape() throws Exception {
        try (UdpPeer ua = new UdpPeer()) {
            String aor = "sip:m-" + UUID.randomUUID() + "@example.com";
            ua.send(RequestText.standard("REGISTER", "sip:example.com", ua.hostPort(), aor, aor,
                    "m-" + UUID.randomUUID(), 1).with("Contact: <sip:m@192.0.2.1>").text(), node.sipAddress());
            ua.expectResponse("REGISTER", 200);
        }
        HostPort metrics = node.metricsAddress().orElseThrow();
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://" + metrics + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());

        assertEquals(200, r.statusCode());
        assertTrue(r.body().contains(
                "\np2psip_dht_operation_duration_seconds_count{operation=\"put\",outcome=\"ok\"} 1\n"), r.body());
        assertTrue(r.body().contains("\np2psip_dht_stored_entries 1\n"), r.body());
        assertTrue(r.body().contains("\np2psip_sip_requests_total{method=\"REGISTER\"} 1\n"), r.body());
        assertTrue(r.body().contains("\np2psip_sip_responses_total{method=\"REGISTER\",class=\"2xx\"} 1\n"), r.body());
        assertTrue(r.body().contains("\np2psip_sip_request_duration_seconds_count{method=\"REGISTER\"} 1\n"),
                r.body());
    }

    @Test
    void theEndpointListensOnTheLoopbackPortItWasGiven() {
        HostPort metrics = node.metricsAddress().orElseThrow();

        assertEquals("127.0.0.1", metrics.host());
        assertTrue(metrics.port() > 0);
    }

    @Test
    void aNodeWithoutAMetricsAddressStillTimesItsDhtButServesNothing() throws Exception {
        try (FrontNode plain = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("example.com")))) {
            plain.locationService().lookup(AddressOfRecord.parse("sip:x@example.com")).get();

            assertEquals(Optional.empty(), plain.metricsAddress());
            long reads = plain.dhtLatencies().snapshot().stream()
                    .filter(s -> s.operation() == DhtOperation.GET && s.outcome() == DhtOutcome.OK)
                    .mapToLong(s -> s.latency().count()).sum();
            assertEquals(1, reads, "the lookup's read, timed");
        }
    }
}
