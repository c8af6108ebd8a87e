package org.p2psip.dht.kademlia;

import java.time.Clock;
import java.util.List;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtRestartContractTest;
import org.p2psip.core.store.DataDir;

/**
 * The restart contract on three kademlia nodes with two copies of every
 * value: each node on the same UDP address both times, so it takes the same
 * id and stays one of the closest nodes to the keys it held.
 */
class KademliaDhtRestartTest extends DhtRestartContractTest {

    @Override
    protected List<Dht> start(List<DataDir> dirs, Clock clock) throws Exception {
        return startOnFixedPorts(new KademliaDhtProvider(), dirs, clock, 2, LoopbackOverlay.fastOptions());
    }
}
