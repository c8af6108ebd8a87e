package org.p2psip.loadtest.scale;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.p2psip.core.net.HostPort;

/**
 * Reads every node's {@code /metrics} (the node's {@code --metrics}
 * endpoint) and adds their DHT-operation histograms together. A node that
 * does not answer makes the whole scrape empty: a sum over some of the
 * nodes would understate the tail.
 */
final class NodeMetricsScrape {

    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    private final List<HostPort> endpoints;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    NodeMetricsScrape(List<HostPort> endpoints) {
        this.endpoints = List.copyOf(endpoints);
    }

    Optional<DhtLatencyHistogram> scrape() {
        if (endpoints.isEmpty()) {
            return Optional.empty();
        }
        DhtLatencyHistogram sum = DhtLatencyHistogram.empty();
        for (HostPort node : endpoints) {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + node + "/metrics"))
                    .timeout(TIMEOUT).GET().build();
            try {
                HttpResponse<String> answer = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (answer.statusCode() != 200) {
                    return Optional.empty();
                }
                sum = sum.plus(DhtLatencyHistogram.parse(answer.body()));
            } catch (IOException | IllegalArgumentException e) {
                return Optional.empty();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
        return Optional.of(sum);
    }
}
