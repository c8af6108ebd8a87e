package org.p2psip.balancer;

import static org.p2psip.core.metrics.ExpositionText.family;

/**
 * A balancer's metrics in the Prometheus text exposition format 0.0.4,
 * following its naming rules (a {@code _total} suffix on counters, base
 * units, one family per kind of thing with labels for its parts):
 *
 * <ul>
 *   <li>per node, labelled {@code node="HOST:PORT"} as given to
 *       {@code --nodes}: {@code p2psip_lb_node_requests_total} (client
 *       requests sent to it), {@code p2psip_lb_node_up} (1 while its probes
 *       are answered), {@code p2psip_lb_node_ready} (1 while it is up and
 *       has not said it is warming up, issue 33),
 *       {@code p2psip_lb_node_share} (the part of its share of new requests
 *       it is given: 0 when down or not ready, rising from 0.1 to 1 in its
 *       slow start, else 1), {@code p2psip_lb_node_shed_ratio} (the share of new
 *       requests it asks to be spared, RFC 7339),
 *       {@code p2psip_lb_node_claimed_key_share} (the share of the key space
 *       it last claimed to own, for the owner policy) and
 *       {@code p2psip_lb_node_probe_rtt_seconds} (how long it took to answer
 *       its last answered health probe);</li>
 *   <li>{@code p2psip_lb_requests_forwarded_total} and
 *       {@code p2psip_lb_responses_forwarded_total}, every direction
 *       together; {@code p2psip_lb_requests_answered_total}, answered by the
 *       balancer itself; {@code p2psip_lb_requests_diverted_total}, sent
 *       past a shedding node; {@code p2psip_lb_requests_failed_over_total},
 *       sent on to another node after a node's 503;</li>
 *   <li>{@code p2psip_lb_messages_dropped_total{reason}} and
 *       {@code p2psip_lb_connections_closed_total{reason}};</li>
 *   <li>{@code p2psip_lb_connections}, client connections open now.</li>
 * </ul>
 */
public final class BalancerMetricsText {

    private BalancerMetricsText() {
    }

    /** The balancer's families as they stand at {@code nowNanos} (its {@link System#nanoTime} clock). */
    public static String render(SipBalancer balancer, long nowNanos) {
        BalancerCounters c = balancer.counters();
        NodeSet nodes = balancer.nodes();
        StringBuilder b = new StringBuilder(2_048);
        family(b, "p2psip_lb_node_requests_total", "counter", "Client requests sent to each node.");
        for (NodeSet.Node n : nodes.all()) {
            b.append("p2psip_lb_node_requests_total{node=\"").append(n.address()).append("\"} ")
                    .append(c.requestsTo(n.index())).append('\n');
        }
        family(b, "p2psip_lb_node_up", "gauge", "1 while a node answers its probes, else 0.");
        for (NodeSet.Node n : nodes.all()) {
            b.append("p2psip_lb_node_up{node=\"").append(n.address()).append("\"} ")
                    .append(nodes.isUp(n.index()) ? 1 : 0).append('\n');
        }
        family(b, "p2psip_lb_node_ready", "gauge",
                "1 while a node is up and has not said it is warming up (P2psip-Ready: no), else 0.");
        for (NodeSet.Node n : nodes.all()) {
            b.append("p2psip_lb_node_ready{node=\"").append(n.address()).append("\"} ")
                    .append(nodes.takesNewRequests(n.index()) ? 1 : 0).append('\n');
        }
        family(b, "p2psip_lb_node_share", "gauge", "Part of its share of new requests a node is given: 0 when "
                + "down or not ready, rising from 0.1 to 1 during its slow start, else 1.");
        for (NodeSet.Node n : nodes.all()) {
            b.append("p2psip_lb_node_share{node=\"").append(n.address()).append("\"} ")
                    .append(nodes.takesNewRequests(n.index()) ? balancer.slowStart().share(n.index(), nowNanos) : 0.0)
                    .append('\n');
        }
        family(b, "p2psip_lb_node_shed_ratio", "gauge", "Share of new requests a node asks to be spared (RFC 7339).");
        for (NodeSet.Node n : nodes.all()) {
            b.append("p2psip_lb_node_shed_ratio{node=\"").append(n.address()).append("\"} ")
                    .append(balancer.nodeLoad().shedding(n.index(), nowNanos) / 100.0).append('\n');
        }
        family(b, "p2psip_lb_node_claimed_key_share", "gauge",
                "Share of the key space a node last claimed to own (owner policy); absent before its first claim.");
        for (NodeSet.Node n : nodes.all()) {
            balancer.keyOwners().claimOf(n.index()).ifPresent(claim -> b
                    .append("p2psip_lb_node_claimed_key_share{node=\"").append(n.address()).append("\"} ")
                    .append(claim.share()).append('\n'));
        }
        family(b, "p2psip_lb_node_probe_rtt_seconds", "gauge",
                "How long a node took to answer its last answered health probe; absent before its first answer.");
        for (NodeSet.Node n : nodes.all()) {
            long rtt = balancer.probeRoundTrips().lastNanos(n.index());
            if (rtt >= 0) {
                b.append("p2psip_lb_node_probe_rtt_seconds{node=\"").append(n.address()).append("\"} ")
                        .append(rtt / 1e9).append('\n');
            }
        }
        counter(b, "p2psip_lb_requests_forwarded_total", "Requests forwarded, to nodes and from them.",
                c.requestsForwarded());
        counter(b, "p2psip_lb_responses_forwarded_total", "Responses forwarded, to clients and to nodes.",
                c.responsesForwarded());
        counter(b, "p2psip_lb_requests_answered_total",
                "Requests the balancer answered itself (503 with no node up, 482, 483, 430, 502, 513).",
                c.answeredLocally());
        counter(b, "p2psip_lb_registers_challenged_total",
                "REGISTERs without credentials the balancer answered itself with the nodes' 401 challenge.",
                c.challenged());
        counter(b, "p2psip_lb_requests_diverted_total", "New requests sent past a node that shed load.",
                c.diverted());
        counter(b, "p2psip_lb_requests_failed_over_total",
                "New non-INVITE requests sent on to another node after a node answered them 503.", c.failedOver());
        family(b, "p2psip_lb_messages_dropped_total", "counter", "Messages dropped unforwarded, by reason.");
        dropped(b, "malformed", c.malformed());
        dropped(b, "foreign_response", c.foreignResponses());
        dropped(b, "undeliverable", c.undeliverable());
        dropped(b, "source_limited", c.sourceDropped());
        dropped(b, "unauthenticated_budget", c.overBudget());
        family(b, "p2psip_lb_connections_closed_total", "counter",
                "Client connections the balancer closed, by reason.");
        closed(b, "refused", c.connectionsRefused());
        closed(b, "idle", c.idleClosed());
        closed(b, "deadline", c.deadlineClosed());
        closed(b, "made_room", c.madeRoom());
        closed(b, "bad_stream", c.streamsClosed());
        family(b, "p2psip_lb_connections", "gauge", "Client TCP and TLS connections open now.");
        b.append("p2psip_lb_connections ").append(balancer.tcpConnections()).append('\n');
        return b.toString();
    }

    private static void dropped(StringBuilder b, String reason, long n) {
        b.append("p2psip_lb_messages_dropped_total{reason=\"").append(reason).append("\"} ").append(n).append('\n');
    }

    private static void closed(StringBuilder b, String reason, long n) {
        b.append("p2psip_lb_connections_closed_total{reason=\"").append(reason).append("\"} ").append(n).append('\n');
    }

    private static void counter(StringBuilder b, String name, String help, long n) {
        family(b, name, "counter", help);
        b.append(name).append(' ').append(n).append('\n');
    }
}
