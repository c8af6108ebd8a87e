package org.p2psip.dht.kademlia;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.p2psip.core.dht.Dht;
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
        List<Dht> nodes = List.copyOf(overlay.nodes());
        return new Cluster() {
            @Override
            public List<Dht> nodes() {
                return nodes;
            }

            @Override
            public Clock clock() {
                return clock;
            }

            @Override
            public void elapse(Duration d) {
                clock.advance(d);
            }

            @Override
            public void close() {
                overlay.close();
            }
        };
    }
}
