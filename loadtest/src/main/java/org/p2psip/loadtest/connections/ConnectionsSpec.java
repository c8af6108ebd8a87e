package org.p2psip.loadtest.connections;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * One {@code bench connections} run, validated.
 *
 * @param target               the node or balancer, on a loopback address
 * @param sources              source addresses, used round-robin: connection i binds {@code sources[i % size]}
 * @param count                connections to open
 * @param rate                 connections opened per second
 * @param slowloris            send an incomplete request on each connection instead of nothing
 * @param watchMillis          how long to watch after the last one is opened (the watch ends sooner once none is open)
 * @param connectTimeoutMillis an unanswered connect counts as failed after this long
 * @param refusedWithinMillis  a connection the target closes this soon after it opened counts as refused
 * @param probeSource          after the others, one more connection from here (null: none)
 * @param registerRate         REGISTER refreshes per second over the open connections once all are open; 0: none
 * @param registerMillis       how long to send them
 * @param domain               the domain of the AORs registered
 */
record ConnectionsSpec(InetSocketAddress target, List<InetAddress> sources, int count, double rate, boolean slowloris,
                       long watchMillis, long connectTimeoutMillis, long refusedWithinMillis, InetAddress probeSource,
                       double registerRate, long registerMillis, String domain) {

    /** Whether the run sends REGISTER refreshes. */
    boolean registers() {
        return registerRate > 0;
    }

    ConnectionsSpec {
        sources = List.copyOf(sources);
    }
}
