package org.p2psip.servlet.metrics;

import static org.p2psip.core.metrics.ExpositionText.family;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.p2psip.core.metrics.DhtLatencySeries;
import org.p2psip.core.metrics.ExpositionText;
import org.p2psip.core.metrics.KeyOwnership;
import org.p2psip.core.metrics.LatencyHistogram;
import org.p2psip.core.metrics.LatencySnapshot;
import org.p2psip.core.metrics.SipTraffic;
import org.p2psip.servlet.accounting.AccountingCounts;

/**
 * A node's metrics in the Prometheus text exposition format 0.0.4: the
 * {@value #DURATION} histogram, one series per DHT operation and each
 * outcome it can have, all of them on every scrape (zero until observed),
 * with cumulative {@code le} buckets, {@code _sum} in seconds and
 * {@code _count}; then the {@value #STORED} gauge when the backend can
 * tell, and the {@value #KEY_OPERATIONS} counter by {@code placement}
 * (whether the node owned the key: {@code local}, {@code remote} or
 * {@code unknown}); then the {@value #OVERLOAD_REJECTIONS} counter, the
 * requests the node's overload gate answered 503 instead of queueing
 * (RFC 3261 §21.5.4), which a balancer relays as 500. {@link #sipTraffic}
 * {@link #ownedShare} and {@link #knownPeers} write the SIP, ownership and
 * membership families a scrape appends, {@link #accounting} those of a node
 * that accounts calls. Numbers are written exactly, from nanoseconds, never through a
 * binary fraction.
 */
final class PrometheusText {

    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    static final String DURATION = "p2psip_dht_operation_duration_seconds";
    static final String STORED = "p2psip_dht_stored_entries";
    static final String KEY_OPERATIONS = "p2psip_dht_key_operations_total";
    static final String OVERLOAD_REJECTIONS = "p2psip_sip_overload_rejections_total";
    static final String REQUESTS = "p2psip_sip_requests_total";
    static final String RESPONSES = "p2psip_sip_responses_total";
    static final String REQUEST_DURATION = "p2psip_sip_request_duration_seconds";
    static final String OWNED_SHARE = "p2psip_dht_owned_key_share";
    static final String KNOWN_PEERS = "p2psip_dht_known_peers";
    static final String READY = "p2psip_node_ready";
    static final String WRITTEN_OFF = "p2psip_dht_peers_written_off_total";
    static final String TIME_TO_READY = "p2psip_node_time_to_ready_seconds";
    static final String ADMISSION_LIMIT = "p2psip_dht_admission_limit";
    static final String ADMISSION_IN_FLIGHT = "p2psip_dht_admission_in_flight";
    static final String ADMISSION_REFUSED = "p2psip_dht_admission_refused_total";
    static final String CREDENTIAL_FREE_DROPPED = "p2psip_sip_credential_free_dropped_total";
    static final String ACCT_WRITTEN = "p2psip_acct_records_written_total";
    static final String ACCT_DROPPED = "p2psip_acct_records_dropped_total";
    static final String ACCT_PENDING = "p2psip_acct_records_pending";
    static final String ACCT_FLUSH_FAILURES = "p2psip_acct_flush_failures_total";

    private PrometheusText() {
    }

    /**
     * @param latencies     the DHT-operation histograms
     * @param storedEntries values the node holds, or negative when the backend cannot tell (no gauge then)
     * @param keyOwnership  key operations by whether the node owned the key
     * @param overloadRejections requests answered 503 for overload so far
     */
    static String render(List<DhtLatencySeries> latencies, long storedEntries, Map<KeyOwnership, Long> keyOwnership,
                         long overloadRejections) {
        StringBuilder b = new StringBuilder(latencies.size() * 2_400);
        family(b, DURATION, "histogram",
                "Time from a DHT call to its completion on this node, by operation and outcome.");
        for (DhtLatencySeries s : latencies) {
            histogram(b, DURATION, "operation=\"" + s.operation().label() + "\",outcome=\"" + s.outcome().label()
                    + "\"", s.latency());
        }
        if (storedEntries >= 0) {
            family(b, STORED, "gauge", "Values this node's DHT holds, owned and replicated, live or not yet purged.");
            b.append(STORED).append(' ').append(storedEntries).append('\n');
        }
        if (!keyOwnership.isEmpty()) {
            family(b, KEY_OPERATIONS, "counter",
                    "DHT gets, puts and removes started on this node, by whether it owned the key.");
            keyOwnership.forEach((o, n) -> b.append(KEY_OPERATIONS).append("{placement=\"").append(o.label())
                    .append("\"} ").append(n).append('\n'));
        }
        family(b, OVERLOAD_REJECTIONS, "counter",
                "Requests answered 503 for overload: the oldest waiting request had waited too long, or the "
                        + "requests waiting on the DHT had reached their adaptive limit.");
        b.append(OVERLOAD_REJECTIONS).append(' ').append(overloadRejections).append('\n');
        return b.toString();
    }

    /**
     * The SIP families: {@value #REQUESTS} by {@code method}, every method
     * label on every scrape; {@value #RESPONSES} by {@code method} and
     * {@code class}, the pairs seen so far; {@value #REQUEST_DURATION} for
     * REGISTER and INVITE, from the moment a SIP thread takes the request
     * up to the node's final response (for a proxied INVITE that includes
     * the callee's ringing).
     */
    static String sipTraffic(SipTraffic traffic) {
        StringBuilder b = new StringBuilder(4_096);
        family(b, REQUESTS, "counter", "SIP requests that reached this node's handling, by method.");
        for (SipTraffic.MethodCount c : traffic.requests()) {
            b.append(REQUESTS).append("{method=\"").append(c.method()).append("\"} ").append(c.count()).append('\n');
        }
        family(b, RESPONSES, "counter", "SIP responses this node sent, by the method they answer and status class.");
        for (SipTraffic.ResponseCount c : traffic.responses()) {
            b.append(RESPONSES).append("{method=\"").append(c.method()).append("\",class=\"").append(c.statusClass())
                    .append("\"} ").append(c.count()).append('\n');
        }
        family(b, REQUEST_DURATION, "histogram",
                "Time from a request's handling starting to this node's final response, by method.");
        for (SipTraffic.MethodLatency l : traffic.latencies()) {
            histogram(b, REQUEST_DURATION, "method=\"" + l.method() + "\"", l.latency());
        }
        return b.toString();
    }

    /** The {@value #OWNED_SHARE} gauge: the share of the key space this node owns, 0 to 1. */
    static String ownedShare(double share) {
        StringBuilder b = new StringBuilder(160);
        family(b, OWNED_SHARE, "gauge", "Share of the DHT's key space this node owns (0 to 1).");
        return b.append(OWNED_SHARE).append(' ').append(share).append('\n').toString();
    }

    /**
     * The {@value #WRITTEN_OFF} counter: how often this node took another
     * overlay member for dead because its calls timed out ({@code Dht.peersWrittenOff}).
     */
    static String writtenOff(long count) {
        StringBuilder b = new StringBuilder(200);
        family(b, WRITTEN_OFF, "counter", "Overlay members this node took for dead because their calls timed out.");
        return b.append(WRITTEN_OFF).append(' ').append(count).append('\n').toString();
    }

    /** The {@value #KNOWN_PEERS} gauge: the other overlay members this node knows ({@code Dht.knownPeers}). */
    static String knownPeers(int peers) {
        StringBuilder b = new StringBuilder(160);
        family(b, KNOWN_PEERS, "gauge", "Other overlay members this node knows now.");
        return b.append(KNOWN_PEERS).append(' ').append(peers).append('\n').toString();
    }

    /**
     * The readiness families: {@value #READY} is 1 once the node has joined
     * its overlay and warmed up, 0 before; {@value #TIME_TO_READY}, from
     * the process's start of the node to then, once it is ready.
     */
    /**
     * The DHT admission's families (issue 33): how many requests may wait on
     * the DHT now ({@value #ADMISSION_LIMIT}), how many do
     * ({@value #ADMISSION_IN_FLIGHT}), and how many were refused with 503
     * for it so far ({@value #ADMISSION_REFUSED}, part of
     * {@value #OVERLOAD_REJECTIONS}).
     */
    static String credentialFreeDropped(long dropped) {
        StringBuilder b = new StringBuilder();
        family(b, CREDENTIAL_FREE_DROPPED, "counter",
                "REGISTER, SUBSCRIBE, PUBLISH and MESSAGE requests without credentials dropped unanswered because"
                        + " more arrived, from all sources together, than --unauthenticated-rate allows.");
        b.append(CREDENTIAL_FREE_DROPPED).append(' ').append(dropped).append('\n');
        return b.toString();
    }

    static String admission(int limit, int inFlight, long refused) {
        StringBuilder b = new StringBuilder(600);
        family(b, ADMISSION_LIMIT, "gauge", "Requests that may wait on the DHT at once; adapts to its latency.");
        b.append(ADMISSION_LIMIT).append(' ').append(limit).append('\n');
        family(b, ADMISSION_IN_FLIGHT, "gauge", "Requests waiting on the DHT now.");
        b.append(ADMISSION_IN_FLIGHT).append(' ').append(inFlight).append('\n');
        family(b, ADMISSION_REFUSED, "counter", "Requests answered 503 because the DHT admission limit was reached.");
        return b.append(ADMISSION_REFUSED).append(' ').append(refused).append('\n').toString();
    }

    static String readiness(boolean ready, Optional<Duration> timeToReady) {
        StringBuilder b = new StringBuilder(400);
        family(b, READY, "gauge", "1 once the node has joined its overlay and warmed up and takes its share of load.");
        b.append(READY).append(' ').append(ready ? 1 : 0).append('\n');
        if (timeToReady.isPresent()) {
            family(b, TIME_TO_READY, "gauge", "Seconds from the node's start to ready: joining the overlay and warming up.");
            b.append(TIME_TO_READY).append(' ').append(seconds(timeToReady.get().toNanos())).append('\n');
        }
        return b.toString();
    }

    /**
     * The accounting families of a node that accounts calls: records
     * written, dropped (a full buffer, refused by the database, or still
     * waiting when the node stopped), waiting in memory now, and flushes
     * that failed and were tried again (each failure of an outage counts).
     */
    static String accounting(AccountingCounts counts) {
        StringBuilder b = new StringBuilder(800);
        family(b, ACCT_WRITTEN, "counter", "Accounting records the database has committed.");
        b.append(ACCT_WRITTEN).append(' ').append(counts.written()).append('\n');
        family(b, ACCT_DROPPED, "counter",
                "Accounting records given up: buffer full, refused by the database, or unwritten at shutdown.");
        b.append(ACCT_DROPPED).append(' ').append(counts.dropped()).append('\n');
        family(b, ACCT_PENDING, "gauge", "Accounting records held in memory, waiting for or in a flush.");
        b.append(ACCT_PENDING).append(' ').append(counts.pending()).append('\n');
        family(b, ACCT_FLUSH_FAILURES, "counter", "Accounting flushes that failed and were tried again.");
        b.append(ACCT_FLUSH_FAILURES).append(' ').append(counts.flushFailures()).append('\n');
        return b.toString();
    }

    private static void histogram(StringBuilder b, String name, String labels, LatencySnapshot latency) {
        List<Long> bounds = LatencyHistogram.UPPER_BOUNDS_NANOS;
        List<Long> counts = latency.cumulativeCounts();
        for (int i = 0; i <= bounds.size(); i++) {
            String le = i < bounds.size() ? seconds(bounds.get(i)) : "+Inf";
            b.append(name).append("_bucket{").append(labels).append(",le=\"").append(le).append("\"} ")
                    .append(counts.get(i)).append('\n');
        }
        b.append(name).append("_sum{").append(labels).append("} ").append(seconds(latency.sumNanos())).append('\n');
        b.append(name).append("_count{").append(labels).append("} ").append(latency.count()).append('\n');
    }

    /** Nanoseconds as plain decimal seconds: 500000 is "0.0005", 1000000000 is "1". */
    static String seconds(long nanos) {
        return ExpositionText.seconds(nanos);
    }
}
