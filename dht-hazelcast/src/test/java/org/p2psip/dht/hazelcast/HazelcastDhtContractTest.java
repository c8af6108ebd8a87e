package org.p2psip.dht.hazelcast;

import java.time.Clock;

import org.p2psip.core.dht.DhtContractTest;

/**
 * Core's contract suite against a real three-member Hazelcast cluster on
 * 127.0.0.1 with two copies of every value, on the real clock.
 */
class HazelcastDhtContractTest extends DhtContractTest {

    @Override
    protected Cluster startCluster(int size) {
        Clock clock = Clock.systemUTC();
        LoopbackMembers members = new LoopbackMembers(2, clock).start(size);
        return onRealClock(members.nodes(), clock, members::close);
    }
}
