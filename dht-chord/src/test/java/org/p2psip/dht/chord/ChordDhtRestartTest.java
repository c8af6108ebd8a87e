package org.p2psip.dht.chord;

import java.time.Clock;
import java.util.List;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtRestartContractTest;
import org.p2psip.core.store.DataDir;

/**
 * The restart contract on a three-node ring with two copies of every
 * value: each node on the same overlay address both times, so it takes the
 * same id and, once the ring has formed again, answers for the keys it held.
 */
class ChordDhtRestartTest extends DhtRestartContractTest {

    @Override
    protected List<Dht> start(List<DataDir> dirs, Clock clock) throws Exception {
        return startOnFixedPorts(new ChordDhtProvider(), dirs, clock, 2, LoopbackRing.fastOptions());
    }
}
