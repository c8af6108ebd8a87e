/**
 * {@code p2psip bench flood}: Kamailio's flood test, run against a node or a
 * balancer on loopback. One source sends random datagrams, or with
 * {@code --kind register} credential-free REGISTERs come from many sources
 * that each stay under a per-source limit, while a probe client elsewhere
 * sends OPTIONS; the share of probes answered within a second, the target's
 * memory and its log's growth show whether the flood cost other clients
 * anything. {@link org.p2psip.loadtest.flood.FloodCommand} runs it and
 * {@link org.p2psip.loadtest.flood.FloodReport} holds what it measured.
 */
package org.p2psip.loadtest.flood;
