package org.p2psip.dht.hazelcast;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtRestartContractTest;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.store.DataDir;
import org.p2psip.core.testing.Eventually;

/**
 * The restart contract on three Hazelcast members with two copies of every
 * value: each member keeps the entries it owns, and after every member
 * stopped and started again they put back what they kept, newest version
 * winning, whatever partitions they own now.
 */
class HazelcastDhtRestartTest extends DhtRestartContractTest {

    private final List<int[]> ports = new ArrayList<>();

    @Override
    protected List<Dht> start(List<DataDir> dirs, Clock clock) throws Exception {
        while (ports.size() < dirs.size()) {
            ports.add(new int[] {LoopbackMembers.freePort(), LoopbackMembers.freePort()});
        }
        LoopbackMembers members = new LoopbackMembers(2, clock);
        List<Dht> nodes = new ArrayList<>();
        HostPort seed = new HostPort(LoopbackMembers.HOST, ports.get(0)[1]);
        List<CompletableFuture<Dht>> starting = new ArrayList<>();
        for (int i = 0; i < dirs.size(); i++) {
            int[] p = ports.get(i);
            starting.add(new HazelcastDhtProvider().start(members.config(p[0], p[1], i == 0 ? List.of() : List.of(seed),
                    Map.of()).withDataDir(dirs.get(i))));
            if (i == 0) {
                nodes.add(starting.get(0).get(60, TimeUnit.SECONDS));
            }
        }
        for (int i = 1; i < starting.size(); i++) {
            nodes.add(starting.get(i).get(60, TimeUnit.SECONDS));
        }
        Eventually.until(() -> nodes.stream().allMatch(n -> ((HazelcastDht) n).hazelcast().getCluster().getMembers()
                .size() == dirs.size()), Duration.ofSeconds(40), "members to see each other");
        return nodes;
    }
}
