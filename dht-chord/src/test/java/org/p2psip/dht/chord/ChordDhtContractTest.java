package org.p2psip.dht.chord;

import java.time.Instant;

import org.p2psip.core.dht.DhtContractTest;
import org.p2psip.core.dht.ManualClock;

/**
 * Core's contract suite against a real four-node Chord ring on 127.0.0.1
 * (two copies of every value), started through the provider and waited on
 * until its ring is ideal. Expiry runs on a manual clock; the ring's own
 * timers run on real time.
 */
class ChordDhtContractTest extends DhtContractTest {

    @Override
    protected int clusterSize() {
        return 4;
    }

    @Override
    protected Cluster startCluster(int size) {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        LoopbackRing ring = new LoopbackRing(2, clock).start(size);
        return onManualClock(ring.nodes(), clock, ring::close);
    }
}
