package org.p2psip.core.metrics;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtContractTest;
import org.p2psip.core.dht.ManualClock;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.local.LocalDht;
import org.p2psip.core.net.HostPort;

/**
 * The DHT contract through the timing decorator, over the local backend:
 * every node wraps its DHT in it, so it must keep every promise the
 * backend does.
 */
class TimedDhtContractTest extends DhtContractTest {

    @Override
    protected Cluster startCluster(int size) {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        List<Peer> peers = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            peers.add(new Peer("timed-" + i, Optional.of(new HostPort("127.0.0.1", 5060 + i))));
        }
        LocalDht.Store store = new LocalDht.Store(clock, peers.get(0));
        DhtLatencies latencies = new DhtLatencies();
        List<Dht> nodes = new ArrayList<>();
        for (Peer peer : peers) {
            nodes.add(new TimedDht(new LocalDht(store, peer, () -> { }), latencies, System::nanoTime));
        }
        return onManualClock(nodes, clock, () -> { });
    }

    /** Every handle shares one table, so each owns every key. */
    @Override
    protected boolean ownershipIsExclusive() {
        return false;
    }
}
