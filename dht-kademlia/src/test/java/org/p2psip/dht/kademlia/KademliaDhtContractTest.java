package org.p2psip.dht.kademlia;

import java.time.Instant;

import org.p2psip.core.dht.DhtContractTest;
import org.p2psip.core.dht.ManualClock;

/**
 * Core's contract suite against a real four-node Kademlia overlay on
 * 127.0.0.1 over UDP (two copies of every value), started through the
 * provider. Expiry runs on a manual clock; timers and retries on real time.
 */
class KademliaDhtContractTest extends DhtContractTest {

    @Override
    protected int clusterSize() {
        return 4;
    }

    @Override
    protected Cluster startCluster(int size) {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        LoopbackOverlay overlay = new LoopbackOverlay(2, clock).start(size);
        return onManualClock(overlay.nodes(), clock, overlay::close);
    }
}
