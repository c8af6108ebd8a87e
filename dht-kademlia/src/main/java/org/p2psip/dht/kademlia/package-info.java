/**
 * The {@code kademlia} backend: a Kademlia node (Maymounkov &amp; Mazières)
 * on core's UDP overlay transport, behind the DHT SPI. Routing follows the
 * paper: k-buckets under the XOR metric
 * ({@link org.p2psip.dht.kademlia.RoutingTable}, §2.2) and iterative lookups
 * with α parallel queries ({@link org.p2psip.dht.kademlia.NodeLookup}, §2.3).
 * It departs from the paper where the SPI needs more: a conditional write is
 * no blind STORE but goes through the key's coordinator, which prepares it at
 * every replica before committing it, and keys move to their new holders when
 * the membership changes, with the periodic republish of §2.5 kept only as a
 * slow safety net. {@link org.p2psip.dht.kademlia.KademliaDht} wires the
 * parts together on one owner thread.
 */
package org.p2psip.dht.kademlia;
