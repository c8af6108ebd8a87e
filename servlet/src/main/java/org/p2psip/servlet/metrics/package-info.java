/**
 * The HTTP endpoint a node or balancer serves on {@code --metrics}:
 * {@code /metrics} in the Prometheus text format, the status page with the
 * {@code /status.json} its script draws, and {@code /ready} for supervisors.
 * {@link org.p2psip.servlet.metrics.MetricsServer} serves them, and
 * {@link org.p2psip.servlet.metrics.PrometheusText} writes a node's DHT
 * latency histograms and its SIP, ownership and accounting figures. Like any
 * Prometheus target it is unauthenticated and read-only, so it belongs where
 * only the monitoring can reach it.
 */
package org.p2psip.servlet.metrics;
