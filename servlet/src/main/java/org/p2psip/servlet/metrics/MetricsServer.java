package org.p2psip.servlet.metrics;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.p2psip.balancer.BalancerMetricsText;
import org.p2psip.balancer.SipBalancer;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.guard.AdaptiveConcurrencyLimit;
import org.p2psip.core.metrics.DhtLatencies;
import org.p2psip.core.metrics.ProcessMetricsText;
import org.p2psip.core.metrics.SipTraffic;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.accounting.AccountingCounts;
import org.p2psip.servlet.status.BalancerStatusPage;
import org.p2psip.servlet.status.StatusPage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * The metrics endpoint of a node or a balancer (HTTP, {@code --metrics
 * HOST:PORT}) for Prometheus, the scale benchmark and people:
 * {@code GET /metrics} answers 200 with the text format (a node's is
 * {@link PrometheusText} and {@link ProcessMetricsText}); {@code GET /} the
 * status page, a self-contained HTML page whose script draws
 * {@code GET /status.json} ({@link StatusPage}), sampled here once a second;
 * {@code GET /ready} 200 once the node (or balancer) is ready for its share
 * of the load and 503 before, for supervisors and orchestrators.
 * Any other path is 404, any other method than GET or HEAD 405, and a
 * scrape that fails 500. Unauthenticated and read-only, like every
 * Prometheus target: bind it where only the monitoring can reach it.
 */
public final class MetricsServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);
    static final String PATH = "/metrics";
    static final String PAGE = "/";
    static final String STATUS = "/status.json";
    static final String READY = "/ready";
    private static final String TEXT = "text/plain; charset=utf-8";
    private static final String HTML = "text/html; charset=utf-8";
    private static final String JSON = "application/json; charset=utf-8";
    private static final Duration SAMPLE_EVERY = Duration.ofSeconds(1);

    private final HttpServer server;
    private final ScheduledExecutorService thread;
    private final Supplier<String> scrape;
    private final StatusPage page;
    private final String html;
    private final BooleanSupplier ready;

    private MetricsServer(HttpServer server, ScheduledExecutorService thread, Supplier<String> scrape, StatusPage page,
                          String html, BooleanSupplier ready) {
        this.ready = ready;
        this.server = server;
        this.thread = thread;
        this.scrape = scrape;
        this.page = page;
        this.html = html;
    }

    /**
     * Binds {@code address} and serves a node's metrics and status page until {@link #close}.
     *
     * @param dht the node's DHT: the values it holds, the share it owns and the peers it knows, read per scrape
     * @param latencies the times of the DHT operations this node started
     * @param overloadRejections the node's count of requests shed with 503, read per scrape
     * @param traffic the node's SIP requests, responses and their times
     * @param page the node's status page
     * @throws IOException when the host does not resolve or the port cannot be bound
     */
    public static MetricsServer start(HostPort address, Dht dht, DhtLatencies latencies,
                                      LongSupplier overloadRejections, SipTraffic traffic, StatusPage page)
            throws IOException {
        return start(address, dht, latencies, overloadRejections, traffic, page, Optional::empty);
    }

    /**
     * As {@link #start(HostPort, Dht, DhtLatencies, LongSupplier, SipTraffic, StatusPage)}
     * for a node that may account calls.
     *
     * @param accounting the node's accounting counters, read per scrape; empty when it accounts nothing
     */
    public static MetricsServer start(HostPort address, Dht dht, DhtLatencies latencies,
                                      LongSupplier overloadRejections, SipTraffic traffic, StatusPage page,
                                      Supplier<Optional<AccountingCounts>> accounting) throws IOException {
        return start(address, dht, latencies, overloadRejections, traffic, page, accounting, () -> true,
                Optional::empty, Optional.empty(), () -> 0);
    }

    /**
     * As {@link #start(HostPort, Dht, DhtLatencies, LongSupplier, SipTraffic, StatusPage, Supplier)} for a
     * node that warms up before it says it is ready.
     *
     * @param ready       whether the node is ready, answered at {@code GET /ready} and exported
     * @param timeToReady how long the node took to become ready; empty while it is not
     * @param admission   the node's limit on requests waiting for the DHT, read per scrape; empty when it has none
     * @param credentialFreeDropped requests without credentials dropped over the node's budget for them
     */
    public static MetricsServer start(HostPort address, Dht dht, DhtLatencies latencies,
                                      LongSupplier overloadRejections, SipTraffic traffic, StatusPage page,
                                      Supplier<Optional<AccountingCounts>> accounting, BooleanSupplier ready,
                                      Supplier<Optional<Duration>> timeToReady,
                                      Optional<AdaptiveConcurrencyLimit> admission, LongSupplier credentialFreeDropped)
            throws IOException {
        return start(address, () -> nodeScrape(dht, latencies, overloadRejections, traffic)
                + accounting.get().map(PrometheusText::accounting).orElse("")
                + admission.map(a -> PrometheusText.admission(a.limit(), a.inFlight(), a.refused())).orElse("")
                + PrometheusText.credentialFreeDropped(credentialFreeDropped.getAsLong())
                + PrometheusText.readiness(ready.getAsBoolean(), timeToReady.get()), page, ready);
    }

    /**
     * Binds {@code address} and serves the balancer's families
     * ({@link BalancerMetricsText}) and its process's until {@link #close}; {@code GET /ready} is 200
     * while some node is up and ready for new requests.
     *
     * @throws IOException when the host does not resolve or the port cannot be bound
     */
    public static MetricsServer start(HostPort address, SipBalancer balancer) throws IOException {
        // A balancer is ready while it has a node to send new requests to: before that it answers them 503.
        return start(address, () -> BalancerMetricsText.render(balancer, System.nanoTime())
                + ProcessMetricsText.render(), new BalancerStatusPage(balancer, System.currentTimeMillis()),
                () -> !balancer.nodes().ready().isEmpty());
    }

    /**
     * Binds {@code address} and serves {@code scrape}'s text, taken afresh
     * at each request, and {@code page}, sampled once a second, until
     * {@link #close}.
     *
     * @throws IOException when the host does not resolve or the port cannot be bound
     */
    public static MetricsServer start(HostPort address, Supplier<String> scrape, StatusPage page) throws IOException {
        return start(address, scrape, page, () -> true);
    }

    /**
     * As {@link #start(HostPort, Supplier, StatusPage)}, answering {@code GET /ready} with 200 when
     * {@code ready} says so and 503 before: what a supervisor or an orchestrator's readiness probe asks.
     *
     * @throws IOException when the host does not resolve or the port cannot be bound
     */
    public static MetricsServer start(HostPort address, Supplier<String> scrape, StatusPage page,
                                      BooleanSupplier ready) throws IOException {
        // Resolved here so an unknown host fails as one, not as an unresolved-address bind error.
        InetAddress host = InetAddress.getByName(address.host());
        HttpServer http = HttpServer.create(new InetSocketAddress(host, address.port()), 16);
        // One thread: a scrape reads counters and writes a few kilobytes, scrapers and people come seconds
        // apart, and the page's samples are taken between their requests.
        ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "p2psip-metrics");
            t.setDaemon(true);
            return t;
        });
        MetricsServer metrics = new MetricsServer(http, thread, scrape, page, pageHtml(), ready);
        http.createContext("/", metrics::handle);
        http.setExecutor(thread);
        thread.scheduleAtFixedRate(metrics::sample, 0, SAMPLE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        http.start();
        return metrics;
    }

    /** The page's HTML, shipped in the jar beside this class's package. */
    private static String pageHtml() throws IOException {
        try (InputStream in = StatusPage.class.getResourceAsStream("status.html")) {
            if (in == null) {
                throw new IOException("status.html is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private void sample() {
        try {
            page.sample(System.currentTimeMillis(), System.nanoTime());
        } catch (RuntimeException e) {
            // A sample that fails (a backend closing under it) costs one point; a thrown one would end the timer.
            LOG.debug("status sample failed: {}", e.toString());
        }
    }

    /** Where it listens. */
    public HostPort address() {
        InetSocketAddress a = server.getAddress();
        return new HostPort(a.getAddress().getHostAddress(), a.getPort());
    }

    @Override
    public void close() {
        server.stop(0);
        thread.shutdownNow();
    }

    private void handle(HttpExchange exchange) {
        try (exchange) {
            String path = exchange.getRequestURI().getRawPath();
            String method = exchange.getRequestMethod();
            if (!PATH.equals(path) && !PAGE.equals(path) && !STATUS.equals(path) && !READY.equals(path)) {
                reply(exchange, 404, TEXT, "no " + path + "; metrics are at " + PATH + ", the status page at " + PAGE
                        + ", readiness at " + READY + "\n");
            } else if (!"GET".equals(method) && !"HEAD".equals(method)) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                reply(exchange, 405, TEXT, "no " + method + " " + path + "; only GET and HEAD\n");
            } else if (PAGE.equals(path)) {
                String filled;
                try {
                    filled = page.html(html);
                } catch (RuntimeException e) {
                    LOG.warn("rendering the status page failed: {}", e.toString());
                    reply(exchange, 500, TEXT, "rendering the status page failed: " + e.getMessage() + "\n");
                    return;
                }
                exchange.getResponseHeaders().set("Cache-Control", "no-store");
                reply(exchange, 200, HTML, filled);
            } else if (READY.equals(path)) {
                exchange.getResponseHeaders().set("Cache-Control", "no-store");
                boolean now = ready.getAsBoolean();
                reply(exchange, now ? 200 : 503, TEXT, now ? "ready\n" : "warming up\n");
            } else {
                String text;
                try {
                    text = PATH.equals(path) ? scrape.get() : page.json();
                } catch (RuntimeException e) {
                    LOG.warn("reading {} failed: {}", path, e.toString());
                    reply(exchange, 500, TEXT, "reading " + path + " failed: " + e.getMessage() + "\n");
                    return;
                }
                if (STATUS.equals(path)) {
                    exchange.getResponseHeaders().set("Cache-Control", "no-store");
                }
                reply(exchange, 200, PATH.equals(path) ? PrometheusText.CONTENT_TYPE : JSON, text);
            }
        } catch (IOException e) {
            // The client went away mid-answer; the next request starts afresh.
            LOG.debug("metrics request failed: {}", e.toString());
        }
    }

    private static String nodeScrape(Dht dht, DhtLatencies latencies, LongSupplier overloadRejections,
                                     SipTraffic traffic) {
        long stored;
        double share;
        int peers;
        long writtenOff;
        try {
            stored = dht.storedEntries();
            share = dht.ownedShare().orElse(Double.NaN);
            peers = dht.knownPeers().size();
            writtenOff = dht.peersWrittenOff();
        } catch (RuntimeException e) {
            // A backend that cannot tell now (closing, a client cut off) costs these gauges, not the histograms.
            LOG.debug("the DHT's gauges are unavailable: {}", e.toString());
            stored = -1;
            share = Double.NaN;
            peers = -1;
            writtenOff = -1;
        }
        return PrometheusText.render(latencies.snapshot(), stored, latencies.keyOwnership(),
                overloadRejections.getAsLong())
                + (Double.isNaN(share) ? "" : PrometheusText.ownedShare(share))
                + (peers < 0 ? "" : PrometheusText.knownPeers(peers))
                + (writtenOff < 0 ? "" : PrometheusText.writtenOff(writtenOff))
                + PrometheusText.sipTraffic(traffic)
                + ProcessMetricsText.render();
    }

    private static void reply(HttpExchange exchange, int status, String contentType, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        if ("HEAD".equals(exchange.getRequestMethod())) {
            // A HEAD answer has no body, and the JDK server complains about a length announced for one.
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
