package org.p2psip.dht.kademlia;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.DhtRestartContractTest;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.store.DataDir;
import org.p2psip.core.testing.FreePorts;

/**
 * The restart contract on three kademlia nodes with two copies of every
 * value: each node on the same UDP address both times, so it takes the same
 * id and stays one of the closest nodes to the keys it held.
 */
class KademliaDhtRestartTest extends DhtRestartContractTest {

    private final List<Integer> overlayPorts = new ArrayList<>();

    @Override
    protected List<Dht> start(List<DataDir> dirs, Clock clock) throws Exception {
        while (overlayPorts.size() < dirs.size()) {
            overlayPorts.add(FreePorts.udpAndTcp());
        }
        List<Dht> nodes = new ArrayList<>();
        for (int i = 0; i < dirs.size(); i++) {
            Map<String, String> options = new HashMap<>(LoopbackOverlay.fastOptions());
            List<HostPort> bootstrap = i == 0 ? List.of() : List.of(new HostPort("127.0.0.1", overlayPorts.get(0)));
            DhtConfig config = new DhtConfig(new HostPort("127.0.0.1", 15200 + i),
                    Optional.of(new HostPort("127.0.0.1", overlayPorts.get(i))), bootstrap, 2, clock, options)
                    .withDataDir(dirs.get(i));
            nodes.add(new KademliaDhtProvider().start(config).get(20, TimeUnit.SECONDS));
        }
        return nodes;
    }
}
