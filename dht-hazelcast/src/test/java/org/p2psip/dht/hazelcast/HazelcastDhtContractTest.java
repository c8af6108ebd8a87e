package org.p2psip.dht.hazelcast;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.p2psip.core.dht.Dht;
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
        List<Dht> nodes = List.copyOf(members.nodes());
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
                Instant until = clock.instant().plus(d);
                LoopbackMembers.waitUntil(() -> clock.instant().isAfter(until), d.plusSeconds(5),
                        d + " to pass on the clock");
            }

            @Override
            public void close() {
                members.close();
            }
        };
    }
}
