package org.p2psip.servlet.status;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.metrics.DhtLatencies;
import org.p2psip.core.metrics.DhtLatencySeries;
import org.p2psip.core.metrics.DhtOperation;
import org.p2psip.core.metrics.LatencySnapshot;
import org.p2psip.core.metrics.SipTraffic;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.status.StatusView.Fact;

/**
 * A node's status page: its SIP address, backend and overlay identity, the
 * share of the key space it owns and the values it holds; the overlay
 * members it knows ({@link Dht#knownPeers}); and charts of the last five
 * minutes, one sample a second: requests by method, responses by status
 * class, REGISTER time to the final response and DHT operation time (median
 * and 99th percentile of each second, estimated from the same histograms
 * {@code /metrics} exposes).
 */
public final class NodeStatusPage implements StatusPage {

    /** Five minutes at one sample a second. */
    static final int HISTORY = 300;

    private final HostPort sip;
    private final Dht dht;
    private final SipTraffic traffic;
    private final DhtLatencies latencies;
    private final long startedMillis;

    private final ChartHistory requests = new ChartHistory("Requests per second", "/s",
            List.of("REGISTER", "INVITE", "other"), HISTORY);
    private final ChartHistory responses = new ChartHistory("Responses per second by class", "/s",
            List.of("2xx", "4xx", "5xx-6xx"), HISTORY);
    private final ChartHistory registerTime = new ChartHistory("REGISTER time to final response", "ms",
            List.of("p50", "p99"), HISTORY);
    private final ChartHistory dhtTime = new ChartHistory("DHT get, put and remove time", "ms",
            List.of("p50", "p99"), HISTORY);

    /** The last sample's readings, to subtract the next from; none before the first. */
    private Reading last;

    private record Reading(long nanos, long[] requests, long[] responses, LatencySnapshot register,
                           LatencySnapshot dht) {
    }

    /**
     * @param sip           the node's SIP address as it advertises it
     * @param startedMillis when the node started, epoch milliseconds
     */
    public NodeStatusPage(HostPort sip, Dht dht, SipTraffic traffic, DhtLatencies latencies, long startedMillis) {
        this.sip = Objects.requireNonNull(sip, "sip");
        this.dht = Objects.requireNonNull(dht, "dht");
        this.traffic = Objects.requireNonNull(traffic, "traffic");
        this.latencies = Objects.requireNonNull(latencies, "latencies");
        this.startedMillis = startedMillis;
    }

    @Override
    public synchronized void sample(long epochMillis, long nanos) {
        Reading now = read(nanos);
        if (last != null && now.nanos() > last.nanos()) {
            double seconds = (now.nanos() - last.nanos()) / 1e9;
            double[] req = new double[3];
            double[] resp = new double[3];
            for (int i = 0; i < 3; i++) {
                req[i] = Math.max(0, now.requests()[i] - last.requests()[i]) / seconds;
                resp[i] = Math.max(0, now.responses()[i] - last.responses()[i]) / seconds;
            }
            requests.add(epochMillis, req);
            responses.add(epochMillis, resp);
            registerTime.add(epochMillis, percentiles(now.register().minus(last.register())));
            dhtTime.add(epochMillis, percentiles(now.dht().minus(last.dht())));
        }
        last = now;
    }

    /** Median and 99th percentile in milliseconds; gaps (NaN) when nothing was timed. */
    private static double[] percentiles(LatencySnapshot between) {
        if (between.count() == 0) {
            return new double[] {Double.NaN, Double.NaN};
        }
        return new double[] {between.quantileNanos(0.5) / 1e6, between.quantileNanos(0.99) / 1e6};
    }

    private Reading read(long nanos) {
        long[] req = new long[3];
        for (SipTraffic.MethodCount c : traffic.requests()) {
            req[switch (c.method()) {
                case "REGISTER" -> 0;
                case "INVITE" -> 1;
                default -> 2;
            }] += c.count();
        }
        long[] resp = new long[3];
        for (SipTraffic.ResponseCount c : traffic.responses()) {
            switch (c.statusClass()) {
                case "2xx" -> resp[0] += c.count();
                case "4xx" -> resp[1] += c.count();
                case "5xx", "6xx" -> resp[2] += c.count();
                default -> {
                    // Provisional and redirect answers are not what a person watches for.
                }
            }
        }
        LatencySnapshot register = LatencySnapshot.empty();
        for (SipTraffic.MethodLatency m : traffic.latencies()) {
            if (m.method().equals("REGISTER")) {
                register = m.latency();
            }
        }
        LatencySnapshot keyOps = LatencySnapshot.empty();
        for (DhtLatencySeries s : latencies.snapshot()) {
            if (s.operation() != DhtOperation.PLACEMENT) {
                keyOps = keyOps.plus(s.latency());
            }
        }
        return new Reading(nanos, req, resp, register, keyOps);
    }

    @Override
    public synchronized StatusView view() {
        return view(System.currentTimeMillis());
    }

    /** The page as it stands at {@code nowMillis}. */
    synchronized StatusView view(long nowMillis) {
        Peer self = dht.self();
        List<Peer> peers = dht.knownPeers();
        double share = dht.ownedShare().orElse(Double.NaN);
        long stored = dht.storedEntries();
        List<Fact> facts = List.of(
                new Fact("SIP", sip.toString()),
                new Fact("backend", dht.backendName()),
                new Fact("overlay id", self.id()),
                new Fact("owns", StatusView.share(share)),
                new Fact("values held", stored < 0 ? "-" : Long.toString(stored)),
                new Fact("peers known", Integer.toString(peers.size())),
                new Fact("up for", StatusView.uptime((nowMillis - startedMillis) / 1000)));
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of(self.id(), sip.toString(), "this node"));
        for (Peer p : peers) {
            rows.add(List.of(p.id(), p.sip().map(HostPort::toString).orElse("-"), "peer"));
        }
        return new StatusView("node", "p2psip node " + sip, facts, List.of("overlay id", "SIP", "role"), rows,
                List.of(requests, responses, registerTime, dhtTime));
    }
}
