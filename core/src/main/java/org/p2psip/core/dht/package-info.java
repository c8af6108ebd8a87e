/**
 * The DHT SPI every backend implements, and all a front node knows of
 * storage. {@link org.p2psip.core.dht.Dht} holds string keys and byte values
 * with an absolute expiry and version-conditional writes, so a
 * read-modify-write from any node either lands on what it read or fails and
 * is retried, and no concurrent update is lost. Backends are found by name
 * through {@link org.p2psip.core.dht.DhtProvider} and started from a
 * {@link org.p2psip.core.dht.DhtConfig}. {@link org.p2psip.core.dht.KeyPlacement}
 * places keys the same way for every backend, so the balancer can tell a
 * key's owner from the {@link org.p2psip.core.dht.KeyRangeSet} each node
 * reports, without a DHT library of its own.
 */
package org.p2psip.core.dht;
