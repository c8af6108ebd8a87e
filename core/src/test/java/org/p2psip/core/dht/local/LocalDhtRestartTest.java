package org.p2psip.core.dht.local;

import java.time.Clock;
import java.util.List;

import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.DhtRestartContractTest;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.store.DataDir;

/** The restart contract on the local backend: one node, its one directory. */
class LocalDhtRestartTest extends DhtRestartContractTest {

    @Override
    protected int size() {
        return 1;
    }

    @Override
    protected List<Dht> start(List<DataDir> dirs, Clock clock) throws Exception {
        DhtConfig config = DhtConfig.standalone(new HostPort("127.0.0.1", 5060), clock).withDataDir(dirs.get(0));
        return List.of(new LocalDhtProvider().start(config).join());
    }
}
