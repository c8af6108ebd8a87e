package org.p2psip.core.dht.local;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtContractTest;
import org.p2psip.core.dht.ManualClock;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.net.HostPort;

/**
 * The contract suite against the local backend: three front-node handles
 * sharing one store, on a manual clock.
 */
class LocalDhtContractTest extends DhtContractTest {

    @Override
    protected Cluster startCluster(int size) {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        List<Peer> peers = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            peers.add(new Peer("local-" + i, Optional.of(new HostPort("127.0.0.1", 5060 + i))));
        }
        LocalDht.Store store = new LocalDht.Store(clock, peers.get(0));
        List<Dht> nodes = new ArrayList<>();
        for (Peer peer : peers) {
            nodes.add(new LocalDht(store, peer, () -> { }));
        }
        return onManualClock(nodes, clock, () -> { });
    }

    /** Every handle shares one table, so each owns every key. */
    @Override
    protected boolean ownershipIsExclusive() {
        return false;
    }
}
