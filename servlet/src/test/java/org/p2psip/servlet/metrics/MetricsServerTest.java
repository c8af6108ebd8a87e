package org.p2psip.servlet.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.local.LocalDht;
import org.p2psip.core.metrics.DhtLatencies;
import org.p2psip.core.metrics.SipTraffic;
import org.p2psip.core.metrics.TimedDht;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.Eventually;
import org.p2psip.servlet.status.NodeStatusPage;

/** The metrics endpoint over a real socket on 127.0.0.1, counting what a timed local DHT did. */
@Timeout(30)
class MetricsServerTest {

    private static final Peer SELF = new Peer("self", Optional.empty());
    private static final HostPort SIP = new HostPort("127.0.0.1", 5060);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final DhtLatencies latencies = new DhtLatencies();
    private Dht dht;
    private MetricsServer server;
    private final SipTraffic traffic = new SipTraffic();

    @BeforeEach
    void start() throws IOException {
        dht = new TimedDht(new LocalDht(new LocalDht.Store(Clock.systemUTC(), SELF), SELF, () -> { }), latencies,
                System::nanoTime);
        server = MetricsServer.start(new HostPort("127.0.0.1", 0), dht, latencies, () -> 0, traffic,
                new NodeStatusPage(SIP, dht, traffic, latencies, System.currentTimeMillis()));
    }

    @AfterEach
    void stop() {
        server.close();
        dht.close();
    }

    private HttpResponse<String> send(String method, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + server.address() + path))
                .timeout(Duration.ofSeconds(10)).method(method, HttpRequest.BodyPublishers.noBody()).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static long value(String text, String series) {
        return text.lines().filter(l -> l.startsWith(series + " ")).findFirst()
                .map(l -> Long.parseLong(l.substring(series.length() + 1)))
                .orElseThrow(() -> new AssertionError("no " + series + " in\n" + text));
    }

    @Test
    void aScrapeCountsTheOperationsDoneSoFarByOperationAndOutcome() throws Exception {
        Instant later = Instant.now().plusSeconds(600);
        assertTrue(dht.putIfVersion("a", Dht.ABSENT, new byte[] {1}, later).join());
        assertTrue(dht.putIfVersion("b", Dht.ABSENT, new byte[] {2}, later).join());
        assertEquals(false, dht.putIfVersion("a", Dht.ABSENT, new byte[] {3}, later).join());
        long version = dht.get("a").join().orElseThrow().version();
        dht.get("missing").join();
        assertEquals(false, dht.removeIfVersion("b", version + 1000).join());
        dht.placement("a").join();

        HttpResponse<String> r = send("GET", "/metrics");

        assertEquals(200, r.statusCode());
        assertEquals("text/plain; version=0.0.4; charset=utf-8", r.headers().firstValue("Content-Type").orElse(""));
        String text = r.body();
        String count = "p2psip_dht_operation_duration_seconds_count";
        assertEquals(2, value(text, count + "{operation=\"put\",outcome=\"ok\"}"));
        assertEquals(1, value(text, count + "{operation=\"put\",outcome=\"conflict\"}"));
        assertEquals(2, value(text, count + "{operation=\"get\",outcome=\"ok\"}"));
        assertEquals(1, value(text, count + "{operation=\"remove\",outcome=\"conflict\"}"));
        assertEquals(0, value(text, count + "{operation=\"remove\",outcome=\"ok\"}"));
        assertEquals(1, value(text, count + "{operation=\"placement\",outcome=\"ok\"}"));
        assertEquals(2, value(text, "p2psip_dht_operation_duration_seconds_bucket"
                + "{operation=\"put\",outcome=\"ok\",le=\"+Inf\"}"));
        assertEquals(2, value(text, "p2psip_dht_stored_entries"));
    }

    @Test
    void aFailedOperationIsCountedAsAnError() throws Exception {
        dht.close();
        assertTrue(dht.get("a").isCompletedExceptionally());

        String text = send("GET", "/metrics").body();

        assertEquals(1, value(text, "p2psip_dht_operation_duration_seconds_count{operation=\"get\",outcome=\"error\"}"));
    }

    @Test
    void anotherPathIsNotFound() throws Exception {
        assertEquals(404, send("GET", "/nothing").statusCode());
        assertEquals(404, send("GET", "/metrics/extra").statusCode());
        assertEquals(404, send("GET", "/status.json/x").statusCode());
    }

    @Test
    void anotherMethodOnMetricsIsNotAllowed() throws Exception {
        HttpResponse<String> r = send("POST", "/metrics");

        assertEquals(405, r.statusCode());
        assertEquals("GET, HEAD", r.headers().firstValue("Allow").orElse(""));
        assertEquals(405, send("DELETE", "/metrics").statusCode());
        assertEquals(405, send("PUT", "/").statusCode());
        assertEquals(200, send("HEAD", "/metrics").statusCode());
    }

    @Test
    void aScrapeCarriesTheSipTrafficTheOwnedShareAndTheProcess() throws Exception {
        traffic.received("REGISTER");
        traffic.received("REGISTER");
        traffic.answeredFinal("REGISTER", 200, 2_000_000);
        traffic.answeredFinal("REGISTER", 401, 400_000);
        String text = send("GET", "/metrics").body();
        assertEquals(2, value(text, "p2psip_sip_requests_total{method=\"REGISTER\"}"));
        assertEquals(0, value(text, "p2psip_sip_requests_total{method=\"INVITE\"}"));
        assertEquals(1, value(text, "p2psip_sip_responses_total{method=\"REGISTER\",class=\"2xx\"}"));
        assertEquals(1, value(text, "p2psip_sip_responses_total{method=\"REGISTER\",class=\"4xx\"}"));
        assertEquals(2, value(text, "p2psip_sip_request_duration_seconds_count{method=\"REGISTER\"}"));
        assertEquals(1, value(text, "p2psip_sip_request_duration_seconds_bucket{method=\"REGISTER\",le=\"0.0005\"}"));
        assertTrue(text.contains("\np2psip_dht_owned_key_share 1.0\n"), text);
        assertTrue(text.contains("\np2psip_dht_known_peers 0\n"), "a local DHT knows no peers: " + text);
        assertTrue(text.contains("\nprocess_cpu_seconds_total "), text);
        assertTrue(text.contains("\njvm_threads_current "), text);
    }

    @Test
    void theStatusPageAndItsDataAreServedBesideTheMetrics() throws Exception {
        HttpResponse<String> page = send("GET", "/");
        assertEquals(200, page.statusCode());
        assertEquals("text/html; charset=utf-8", page.headers().firstValue("Content-Type").orElse(""));
        assertTrue(page.body().contains("status.json"), "the page reads its data from status.json");
        assertTrue(page.body().contains("<h1 id=\"title\">p2psip node 127.0.0.1:5060</h1>"), page.body());
        assertTrue(page.body().contains("<td>self</td><td>127.0.0.1:5060</td><td>this node</td>"),
                "the members table is there before the script runs:\n" + page.body());

        traffic.received("REGISTER");
        // The first sample is taken at start; rates need a second one a second later.
        Eventually.until(() -> chartPoints(statusJson()) >= 1, Duration.ofSeconds(10), "a chart point");
        HttpResponse<String> data = send("GET", "/status.json");
        assertEquals(200, data.statusCode());
        assertEquals("application/json; charset=utf-8", data.headers().firstValue("Content-Type").orElse(""));
        assertEquals("no-store", data.headers().firstValue("Cache-Control").orElse(""));
        String json = data.body();
        assertTrue(json.startsWith("{\"kind\":\"node\",\"title\":\"p2psip node 127.0.0.1:5060\""), json);
        assertTrue(json.contains("[\"self\",\"127.0.0.1:5060\",\"this node\"]"), json);
        assertTrue(json.contains("{\"name\":\"owns\",\"value\":\"100.0 %\"}"), json);
    }

    private String statusJson() {
        try {
            return send("GET", "/status.json").body();
        } catch (Exception e) {
            throw new AssertionError("status.json unreadable", e);
        }
    }

    /** The points of the first chart in a status.json answer. */
    private static int chartPoints(String json) {
        int at = json.indexOf("\"points\":[");
        if (at < 0 || json.startsWith("[]", at + 10)) {
            return 0;
        }
        return json.substring(at).split("\\],\\[").length;
    }

    @Test
    void aBusyPortFailsTheStartWithAnIoException() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThrows(IOException.class, () -> MetricsServer.start(
                    new HostPort("127.0.0.1", taken.getLocalPort()), dht, latencies, () -> 0, new SipTraffic(),
                    new NodeStatusPage(SIP, dht, traffic, latencies, 0)));
        }
    }
}
