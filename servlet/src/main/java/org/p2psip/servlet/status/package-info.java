/**
 * The status page a node or balancer serves at {@code /} beside
 * {@code /metrics}: who the process is, the members it knows, and charts of
 * the last five minutes sampled once a second. Both kinds of process describe
 * themselves as a {@link org.p2psip.servlet.status.StatusView} of one shape,
 * so one script draws either; {@link org.p2psip.servlet.status.NodeStatusPage}
 * and {@link org.p2psip.servlet.status.BalancerStatusPage} implement
 * {@link org.p2psip.servlet.status.StatusPage}. The server fills the page in
 * before sending it, so it says something to a client that runs no script.
 */
package org.p2psip.servlet.status;
