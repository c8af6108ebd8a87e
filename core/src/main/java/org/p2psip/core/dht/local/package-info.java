/**
 * The {@code local} backend: one process, no overlay, for a single node.
 * Being the simplest correct implementation of the SPI, it is also the model
 * the distributed backends are tested against.
 * {@link org.p2psip.core.dht.local.LocalDht} makes conditional writes atomic
 * per key on a concurrent map, with expiry on an injected clock;
 * {@link org.p2psip.core.dht.local.LocalDhtProvider} starts it for
 * {@code --dht local} and, given a data directory, reloads its values and
 * writes their changes behind.
 */
package org.p2psip.core.dht.local;
