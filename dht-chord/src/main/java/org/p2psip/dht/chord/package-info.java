/**
 * The {@code chord} backend: a Chord ring behind the DHT SPI, maintained by
 * Zave's corrected protocol ("Reasoning about identifier spaces: how to make
 * Chord correct", 2017), whose invariants
 * {@link org.p2psip.dht.chord.RingInvariants} states. A key lives at its
 * successor and on the next {@code replicas - 1} nodes. Its owner decides
 * every conditional write and commits it through the first replica, which
 * refuses the writes of an owner wrongly taken for dead, so a stalled node
 * that comes back cannot overwrite newer values.
 * {@link org.p2psip.dht.chord.ChordDht} wires the parts together on a single
 * owner thread, so none needs a lock; {@link org.p2psip.dht.chord.RingState}
 * holds the ring rules without I/O and {@link org.p2psip.dht.chord.KeyStore}
 * the values.
 */
package org.p2psip.dht.chord;
