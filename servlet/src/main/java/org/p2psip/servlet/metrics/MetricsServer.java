package org.p2psip.servlet.metrics;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.p2psip.balancer.BalancerMetricsText;
import org.p2psip.balancer.SipBalancer;
import org.p2psip.core.metrics.DhtLatencies;
import org.p2psip.core.metrics.ProcessMetricsText;
import org.p2psip.core.metrics.SipTraffic;
import org.p2psip.core.net.HostPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * The metrics endpoint of a node or a balancer (HTTP, {@code --metrics
 * HOST:PORT}) for Prometheus and the scale benchmark: {@code GET /metrics}
 * answers 200 with the text format (a node's is {@link PrometheusText}
 * and {@link ProcessMetricsText}); any other path is 404, any other method
 * on it 405, and a scrape that fails 500. Unauthenticated and read-only, like every Prometheus target:
 * bind it where only the monitoring can reach it.
 */
public final class MetricsServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);
    static final String PATH = "/metrics";
    private static final String TEXT = "text/plain; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService thread;
    private final Supplier<String> scrape;

    private MetricsServer(HttpServer server, ExecutorService thread, Supplier<String> scrape) {
        this.server = server;
        this.thread = thread;
        this.scrape = scrape;
    }

    /**
     * Binds {@code address} and serves until {@link #close}.
     *
     * @param storedEntries the DHT's {@code storedEntries()}, read per scrape
     * @param overloadRejections the node's count of requests shed with 503, read per scrape
     * @param traffic the node's SIP requests, responses and their times
     * @param ownedShare the share of the key space the node owns, NaN when the backend cannot tell
     * @throws IOException when the host does not resolve or the port cannot be bound
     */
    public static MetricsServer start(HostPort address, DhtLatencies latencies, LongSupplier storedEntries,
                                      LongSupplier overloadRejections, SipTraffic traffic,
                                      DoubleSupplier ownedShare) throws IOException {
        return start(address, () -> nodeScrape(latencies, storedEntries, overloadRejections, traffic, ownedShare));
    }

    /**
     * Binds {@code address} and serves the balancer's families
     * ({@link BalancerMetricsText}) and its process's until {@link #close}.
     *
     * @throws IOException when the host does not resolve or the port cannot be bound
     */
    public static MetricsServer start(HostPort address, SipBalancer balancer) throws IOException {
        return start(address, () -> BalancerMetricsText.render(balancer, System.nanoTime())
                + ProcessMetricsText.render());
    }

    /**
     * Binds {@code address} and serves {@code scrape}'s text, taken afresh
     * at each request, until {@link #close}.
     *
     * @throws IOException when the host does not resolve or the port cannot be bound
     */
    public static MetricsServer start(HostPort address, Supplier<String> scrape) throws IOException {
        // Resolved here so an unknown host fails as one, not as an unresolved-address bind error.
        InetAddress host = InetAddress.getByName(address.host());
        HttpServer http = HttpServer.create(new InetSocketAddress(host, address.port()), 16);
        // One thread: a scrape reads counters and writes a few kilobytes, and scrapers come seconds apart.
        ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "p2psip-metrics");
            t.setDaemon(true);
            return t;
        });
        MetricsServer metrics = new MetricsServer(http, thread, scrape);
        http.createContext("/", metrics::handle);
        http.setExecutor(thread);
        http.start();
        return metrics;
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
            if (!PATH.equals(path)) {
                reply(exchange, 404, TEXT, "no " + path + "; metrics are at " + PATH + "\n");
            } else if (!"GET".equals(method)) {
                exchange.getResponseHeaders().set("Allow", "GET");
                reply(exchange, 405, TEXT, "no " + method + " " + PATH + "; only GET\n");
            } else {
                String text;
                try {
                    text = scrape.get();
                } catch (RuntimeException e) {
                    LOG.warn("a metrics scrape failed: {}", e.toString());
                    reply(exchange, 500, TEXT, "the scrape failed: " + e.getMessage() + "\n");
                    return;
                }
                reply(exchange, 200, PrometheusText.CONTENT_TYPE, text);
            }
        } catch (IOException e) {
            // The scraper went away mid-answer; the next scrape starts afresh.
            LOG.debug("metrics request failed: {}", e.toString());
        }
    }

    private static String nodeScrape(DhtLatencies latencies, LongSupplier storedEntries,
                                     LongSupplier overloadRejections, SipTraffic traffic, DoubleSupplier ownedShare) {
        long stored;
        try {
            stored = storedEntries.getAsLong();
        } catch (RuntimeException e) {
            // A backend that cannot count now (closing, a client cut off) costs the gauge, not the histogram.
            LOG.debug("stored entries unavailable: {}", e.toString());
            stored = -1;
        }
        double share;
        try {
            share = ownedShare.getAsDouble();
        } catch (RuntimeException e) {
            LOG.debug("owned share unavailable: {}", e.toString());
            share = Double.NaN;
        }
        return PrometheusText.render(latencies.snapshot(), stored, latencies.keyOwnership(),
                overloadRejections.getAsLong())
                + (Double.isNaN(share) ? "" : PrometheusText.ownedShare(share))
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
