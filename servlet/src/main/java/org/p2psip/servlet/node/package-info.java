/**
 * One P2PSIP front node. {@link org.p2psip.servlet.node.FrontNode} runs a
 * JAIN-SIP RI stack as registrar (RFC 3261 §10) and proxy (§16) on a
 * location service kept in the chosen DHT, so the node itself holds no
 * registration state; it is started from
 * {@link org.p2psip.servlet.node.NodeSettings}. A fresh JVM answers its first
 * requests from interpreted code, some only after the UA has retransmitted,
 * so before a node says it is ready
 * ({@link org.p2psip.servlet.node.NodeReadiness}: 503 to the balancer's probe,
 * 503 on {@code /ready}) it runs its SIP and DHT paths hot
 * ({@link org.p2psip.servlet.node.NodeWarmup}), without taking the CPU that
 * busy peers on the same host are serving with.
 */
package org.p2psip.servlet.node;
