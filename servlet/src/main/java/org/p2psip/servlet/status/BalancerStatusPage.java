package org.p2psip.servlet.status;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import org.p2psip.balancer.BalancerCounters;
import org.p2psip.balancer.NodeSet;
import org.p2psip.balancer.SipBalancer;
import org.p2psip.core.dht.KeyRangeSet;
import org.p2psip.servlet.status.StatusView.Fact;

/**
 * A balancer's status page: the nodes it balances over, each with its
 * state as the health probes and the node's own overload signals have it
 * (up, down, shedding a share of new requests), the share of the key space
 * it last claimed and the requests sent to it; and charts of the last five
 * minutes, one sample a second: requests sent to each node, each node's
 * health-probe round trip, and what the balancer did with its input.
 */
public final class BalancerStatusPage implements StatusPage {

    private final SipBalancer balancer;
    private final long startedMillis;
    private final List<NodeSet.Node> nodes;
    private final ChartHistory toNodes;
    private final ChartHistory probeTimes;
    private final ChartHistory handled = new ChartHistory("Balancer messages per second", "/s",
            List.of("requests forwarded", "responses forwarded", "answered itself", "dropped"),
            NodeStatusPage.HISTORY);

    private long lastNanos = -1;
    private long[] lastToNode;
    private long[] lastHandled;
    /** Each node's request rate in the last sample, for the members table; NaN before two samples. */
    private double[] lastRates;

    /** @param startedMillis when the balancer started, epoch milliseconds */
    public BalancerStatusPage(SipBalancer balancer, long startedMillis) {
        this.balancer = Objects.requireNonNull(balancer, "balancer");
        this.startedMillis = startedMillis;
        this.nodes = balancer.nodes().all();
        List<String> names = nodes.stream().map(n -> n.address().toString()).toList();
        this.toNodes = new ChartHistory("Requests per second to each node", "/s", names, NodeStatusPage.HISTORY);
        this.probeTimes = new ChartHistory("Health probe round trip", "ms", names, NodeStatusPage.HISTORY);
        this.lastRates = new double[nodes.size()];
        Arrays.fill(lastRates, Double.NaN);
    }

    @Override
    public synchronized void sample(long epochMillis, long nanos) {
        BalancerCounters c = balancer.counters();
        long[] toNode = new long[nodes.size()];
        double[] rtt = new double[nodes.size()];
        for (NodeSet.Node n : nodes) {
            toNode[n.index()] = c.requestsTo(n.index());
            long r = balancer.probeRoundTrips().lastNanos(n.index());
            // A down node's last round trip is history, not its state now.
            rtt[n.index()] = r < 0 || !balancer.nodes().isUp(n.index()) ? Double.NaN : r / 1e6;
        }
        long[] done = {c.requestsForwarded(), c.responsesForwarded(), c.answeredLocally(),
                c.malformed() + c.foreignResponses() + c.undeliverable() + c.sourceDropped() + c.overBudget()};
        probeTimes.add(epochMillis, rtt);
        if (lastNanos >= 0 && nanos > lastNanos) {
            double seconds = (nanos - lastNanos) / 1e9;
            double[] rates = new double[toNode.length];
            for (int i = 0; i < rates.length; i++) {
                rates[i] = Math.max(0, toNode[i] - lastToNode[i]) / seconds;
            }
            double[] handledRates = new double[done.length];
            for (int i = 0; i < done.length; i++) {
                handledRates[i] = Math.max(0, done[i] - lastHandled[i]) / seconds;
            }
            toNodes.add(epochMillis, rates);
            handled.add(epochMillis, handledRates);
            lastRates = rates;
        }
        lastNanos = nanos;
        lastToNode = toNode;
        lastHandled = done;
    }

    @Override
    public synchronized StatusView view() {
        return view(System.currentTimeMillis(), System.nanoTime());
    }

    /** The page as it stands at {@code nowMillis} (wall clock) and {@code nowNanos} (the balancer's clock). */
    synchronized StatusView view(long nowMillis, long nowNanos) {
        NodeSet set = balancer.nodes();
        int up = 0;
        List<List<String>> rows = new ArrayList<>();
        for (NodeSet.Node n : nodes) {
            boolean isUp = set.isUp(n.index());
            up += isUp ? 1 : 0;
            int shed = balancer.nodeLoad().shedding(n.index(), nowNanos);
            String state = !isUp ? "down" : shed > 0 ? "up, shedding " + shed + " %" : "up";
            String claims = balancer.keyOwners().claimOf(n.index()).map(KeyRangeSet::share).map(StatusView::share)
                    .orElse("-");
            long rtt = balancer.probeRoundTrips().lastNanos(n.index());
            rows.add(List.of(n.address().toString(), state, claims, rate(lastRates[n.index()]),
                    rtt < 0 || !isUp ? "-" : String.format(Locale.ROOT, "%.1f", rtt / 1e6)));
        }
        List<Fact> facts = List.of(
                new Fact("SIP", balancer.address().toString()),
                new Fact("policy", balancer.policy().toString()),
                new Fact("nodes up", up + " of " + nodes.size()),
                new Fact("client connections", Integer.toString(balancer.tcpConnections())),
                new Fact("up for", StatusView.uptime((nowMillis - startedMillis) / 1000)));
        return new StatusView("balancer", "p2psip balancer " + balancer.address(), facts,
                List.of("node", "state", "claims", "requests/s", "probe ms"), rows,
                List.of(toNodes, probeTimes, handled));
    }

    private static String rate(double perSecond) {
        return Double.isNaN(perSecond) ? "-" : String.format(Locale.ROOT, "%.1f", perSecond);
    }
}
