/**
 * {@code p2psip bench scale}: the scale benchmark, the P2PSIP paper's Table 2
 * turned to node counts. For each backend and node count
 * {@link org.p2psip.loadtest.scale.ScaleRun} starts a local cluster behind the
 * balancer as a child process ({@link org.p2psip.loadtest.scale.ClusterProcess}),
 * so load generator and nodes share no heap, warms it up, searches each
 * scenario's highest sustainable rate and tears it down. Each
 * {@link org.p2psip.loadtest.scale.ScaleCell} also keeps the nodes' DHT
 * latency and the CPU each part spent per 1,000 flows, because on one
 * machine a rate says what that machine does, not what N hosts would. The
 * results go to CSV, JSON, Markdown and PNG charts, optionally checked
 * against SIPp.
 */
package org.p2psip.loadtest.scale;
