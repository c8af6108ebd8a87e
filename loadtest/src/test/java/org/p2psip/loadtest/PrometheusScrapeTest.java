package org.p2psip.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.testing.FreePorts;

/**
 * A real Prometheus server (Debian's {@code prometheus}) scrapes three chord
 * node processes with two copies of every binding and the {@code p2psip lb}
 * in front of them, every second. SIPp then registers 1,000 distinct AORs
 * through the balancer, once each. What Prometheus's query API reports must
 * match what SIPp did:
 * <ul>
 *   <li>the nodes' REGISTER counter rose by the REGISTERs SIPp sent, and
 *       their 2xx counter by the ones it saw answered (retransmissions are
 *       absorbed by the nodes' transaction layer, and the balancer sends them
 *       to the node that has the transaction);</li>
 *   <li>the balancer counted those REGISTERs and SIPp's retransmissions of
 *       them as sent to its nodes;</li>
 *   <li>at least 95 % of the DHT operations those REGISTERs caused were on
 *       the node that owned the key (the owner policy).</li>
 * </ul>
 * Prometheus must also evaluate every query of the Grafana dashboard kept
 * in {@code docs/grafana}.
 */
@Timeout(300)
class PrometheusScrapeTest {

    private static final String DOMAIN = "p2psip.test";
    private static final int AORS = 1_000;
    private static final Pattern RETRANSMITTED = Pattern.compile("REGISTER -+>\\s+\\d+\\s+(\\d+)");
    private static final Pattern VALUE = Pattern.compile("\"value\":\\[[0-9.]+,\"([^\"]+)\"\\]");

    @TempDir
    Path work;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private int prometheusPort;

    @Test
    void prometheusSeesTheRegistersSippSentAndTheirOwnersServingThem() throws Exception {
        int lbPort = FreePorts.udpAndTcp();
        int lbMetrics = FreePorts.udpAndTcp();
        try (OverlayNodes nodes = new OverlayNodes("chord", 2, Optional.of(DOMAIN), Optional.of(lbPort))) {
            nodes.startAll(3);
            try (NodeProcess lb = nodes.startBalancer(lbMetrics)) {
                List<String> nodeTargets = nodes.members().stream().map(m -> "127.0.0.1:" + m.metrics()).toList();
                Process prometheus = startPrometheus(nodeTargets, "127.0.0.1:" + lbMetrics);
                try {
                    awaitQuery("sum(up{job=~\"p2psip-.*\"})", v -> v == 4, Duration.ofSeconds(60),
                            "all four targets scraped");
                    // The balancer routes by owner once every node has claimed its keys in a probe answer.
                    awaitQuery("sum(p2psip_lb_node_claimed_key_share)", v -> v > 0.999, Duration.ofSeconds(60),
                            "the nodes' claims covering the key space");
                    double registersBefore = query("sum(p2psip_sip_requests_total{method=\"REGISTER\"})");
                    double localBefore = query("sum(p2psip_dht_key_operations_total{placement=\"local\"})");
                    double allBefore = query("sum(p2psip_dht_key_operations_total)");

                    Path csv = OverlayNodes.domainAors(work, "prom", AORS, DOMAIN);
                    Sipp.Result sent = Sipp.run(work, Duration.ofSeconds(120),
                            "-sf", Path.of("sipp", "register-domain.xml").toAbsolutePath().toString(),
                            "-inf", csv.toString(), "-key", "regcseq", "1", "-m", Integer.toString(AORS),
                            "-r", "200", "-i", "127.0.0.1", "-p", Integer.toString(FreePorts.udpAndTcp()),
                            "-trace_err", "-error_file", work.resolve("sipp.log").toString(),
                            "127.0.0.1:" + lbPort);
                    double finished = System.currentTimeMillis() / 1000.0;
                    assertEquals(AORS, sent.successful() + sent.failed(), sent::toString);
                    // Every series Prometheus holds must come from a scrape taken after SIPp's last answer.
                    // The nodes and the balancer are scraped apart: wait for both (the balancer's count once
                    // came from a scrape taken while SIPp still ran, 962 of 1,000).
                    awaitQuery("min(timestamp(p2psip_sip_requests_total{method=\"REGISTER\"}))",
                            t -> t > finished + 0.5, Duration.ofSeconds(30), "a scrape of the nodes after the run");
                    awaitQuery("min(timestamp(p2psip_lb_node_requests_total))",
                            t -> t > finished + 0.5, Duration.ofSeconds(30), "a scrape of the balancer after the run");

                    double registers = query("sum(p2psip_sip_requests_total{method=\"REGISTER\"})") - registersBefore;
                    double ok = query("sum(p2psip_sip_responses_total{method=\"REGISTER\",class=\"2xx\"})");
                    double forwarded = query("sum(p2psip_lb_node_requests_total)");
                    double local = query("sum(p2psip_dht_key_operations_total{placement=\"local\"})") - localBefore;
                    double all = query("sum(p2psip_dht_key_operations_total)") - allBefore;
                    String seen = String.format("SIPp: %d registered, %d failed, %d retransmitted; Prometheus: "
                            + "%.0f REGISTERs at the nodes, %.0f answered 2xx, %.0f requests sent by the balancer, "
                            + "%.0f of %.0f key operations local", sent.successful(), sent.failed(),
                            retransmissions(sent.screen()), registers, ok, forwarded, local, all);
                    System.out.println("prometheus scrape: " + seen);
                    assertEquals(AORS, sent.successful(), seen);
                    assertEquals(AORS, registers, seen);
                    assertEquals(AORS, ok, seen);
                    // The balancer forwards SIPp's retransmissions too, each to the node of its transaction.
                    assertEquals(AORS + retransmissions(sent.screen()), forwarded, seen);
                    assertTrue(all >= 2 * AORS && local >= 0.95 * all, seen);
                    List<String> refused = new ArrayList<>();
                    for (String expr : dashboardQueries()) {
                        if (!acceptedQuery(expr)) {
                            refused.add(expr);
                        }
                    }
                    assertEquals(List.of(), refused, "queries of docs/grafana/p2psip-dashboard.json Prometheus refused");
                } finally {
                    prometheus.destroy();
                    if (!prometheus.waitFor(10, TimeUnit.SECONDS)) {
                        prometheus.destroyForcibly();
                    }
                }
            }
        }
    }

    /** Every PromQL expression of the Grafana dashboard kept in the repository. */
    private static List<String> dashboardQueries() throws IOException {
        String json = Files.readString(Path.of("..", "docs", "grafana", "p2psip-dashboard.json"), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("\"expr\": \"((?:[^\"\\\\]|\\\\.)*)\"").matcher(json);
        List<String> out = new ArrayList<>();
        while (m.find()) {
            out.add(m.group(1).replace("\\\"", "\"").replace("\\\\", "\\"));
        }
        assertTrue(out.size() >= 10, "the dashboard's queries: " + out);
        return out;
    }

    /** Whether Prometheus evaluates {@code promql} without error (an empty result is fine). */
    private boolean acceptedQuery(String promql) throws InterruptedException, IOException {
        HttpResponse<String> r = ask(promql);
        return r.statusCode() == 200 && r.body().contains("\"status\":\"success\"");
    }

    /** The REGISTER retransmissions on SIPp's last statistics screen. */
    private static long retransmissions(String screen) {
        Matcher m = RETRANSMITTED.matcher(screen);
        long last = -1;
        while (m.find()) {
            last = Long.parseLong(m.group(1));
        }
        assertTrue(last >= 0, () -> "no REGISTER line on SIPp's screen:\n" + screen);
        return last;
    }

    private Process startPrometheus(List<String> nodeTargets, String lbTarget) throws IOException {
        prometheusPort = FreePorts.udpAndTcp();
        Path config = work.resolve("prometheus.yml");
        Files.writeString(config, String.join("\n",
                "global:",
                "  scrape_interval: 1s",
                "  scrape_timeout: 1s",
                "scrape_configs:",
                "  - job_name: p2psip-node",
                "    static_configs:",
                "      - targets: [" + nodeTargets.stream().map(t -> "'" + t + "'").collect(Collectors.joining(", "))
                        + "]",
                "  - job_name: p2psip-lb",
                "    static_configs:",
                "      - targets: ['" + lbTarget + "']",
                ""));
        List<String> command = new ArrayList<>(List.of("prometheus", "--config.file=" + config,
                "--storage.tsdb.path=" + work.resolve("tsdb"),
                "--web.listen-address=127.0.0.1:" + prometheusPort));
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(work.resolve("prometheus.log").toFile()).start();
    }

    /** An instant query's single value, or NaN when it has none (yet). */
    private double query(String promql) throws IOException, InterruptedException {
        OptionalDouble v = tryQuery(promql);
        return v.isPresent() ? v.getAsDouble() : Double.NaN;
    }

    private OptionalDouble tryQuery(String promql) throws InterruptedException {
        try {
            HttpResponse<String> r = ask(promql);
            Matcher m = VALUE.matcher(r.body());
            return r.statusCode() == 200 && m.find() ? OptionalDouble.of(Double.parseDouble(m.group(1)))
                    : OptionalDouble.empty();
        } catch (IOException e) {
            // Prometheus not listening yet.
            return OptionalDouble.empty();
        }
    }

    /** Prometheus's answer to the instant query {@code promql}. */
    private HttpResponse<String> ask(String promql) throws IOException, InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + prometheusPort + "/api/v1/query?query="
                + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Polls {@code promql} every 250 ms until its value passes {@code test}, failing after {@code limit}. */
    private void awaitQuery(String promql, java.util.function.DoublePredicate test, Duration limit, String what)
            throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        OptionalDouble last = OptionalDouble.empty();
        while (System.nanoTime() < deadline) {
            last = tryQuery(promql);
            if (last.isPresent() && test.test(last.getAsDouble())) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(250);
        }
        throw new AssertionError("waited " + limit.toSeconds() + " s for " + what + " (" + promql + " = " + last
                + "); Prometheus said:\n" + String.join("\n", tail(work.resolve("prometheus.log"), 20)));
    }

    private static List<String> tail(Path file, int lines) throws IOException {
        if (!Files.exists(file)) {
            return List.of();
        }
        List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
        return all.subList(Math.max(0, all.size() - lines), all.size());
    }
}
