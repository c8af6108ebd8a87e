/**
 * The stateless SIP load balancer in front of the front nodes. It keeps no
 * per-transaction state (RFC 3261 §16.11): a response finds its client by the
 * balancer's own Via entry, so a restarted balancer still routes the answers
 * to what it forwarded before. {@link org.p2psip.balancer.SipBalancer} builds
 * the Netty pipelines, {@link org.p2psip.balancer.SipRouter} forwards, and
 * {@link org.p2psip.balancer.NodeSelector} picks a node under a
 * {@link org.p2psip.balancer.BalancingPolicy}: among those the OPTIONS probes
 * of {@link org.p2psip.balancer.HealthChecker} find up and ready, by the key
 * ranges each claims in its answer, and sparing the share of load a node asks
 * to shed in its responses (RFC 7339). It is also the edge proxy of TCP and
 * TLS clients (RFC 5626 flows) and turns away floods before they reach a node.
 */
package org.p2psip.balancer;
