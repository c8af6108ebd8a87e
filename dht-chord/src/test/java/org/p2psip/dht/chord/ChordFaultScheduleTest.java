package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.OverlayRuntime;
import org.p2psip.core.overlay.simulated.FaultScheduleRun;
import org.p2psip.core.overlay.simulated.SimulatedBackend;
import org.p2psip.core.overlay.simulated.SimulatedOverlayNetwork;

/**
 * Chord's whole data plane — ring maintenance, fenced writes, custody
 * hand-offs, fetches — on a simulated network under seeded fault schedules:
 * no acknowledged write may be lost. {@code -Dfaults.seeds=N} runs N seeds,
 * {@code -Dfaults.seed=S} starts at seed S (to replay a failing one);
 * {@code -Dfaults.max-nodes} (16) and {@code -Dfaults.count} (3) size the
 * schedules (the soak runs 32 and 5); {@code -Dfaults.verbose=true} prints
 * every outcome.
 */
class ChordFaultScheduleTest {

    static final SimulatedBackend CHORD = new SimulatedBackend() {
        @Override
        public String name() {
            return "chord";
        }

        @Override
        public SimulatedOverlayNetwork.Semantics semantics() {
            return SimulatedOverlayNetwork.Semantics.STREAM;
        }

        @Override
        public Node start(HostPort address, OverlayRuntime runtime, SimulatedOverlayNetwork network,
                          List<HostPort> seeds, int replicas) {
            ChordOptions options = ChordOptions.parse(Map.of(), replicas);
            ChordDht dht = new ChordDht(new NodeRef(IdSpace.SHA1.idOf(address.toString()), address,
                    Optional.of(address)), runtime, replicas, options);
            dht.attach(network.bind(address, dht::handle));
            CompletableFuture<Void> joined = dht.join(seeds).thenRun(dht::startMaintenance);
            return new Node(dht, joined, dht::crash);
        }
    };

    @Test
    void noAcknowledgedWriteIsLostUnderSeededFaults() {
        List<FaultScheduleRun.Outcome> broken = FaultScheduleRun.runSeeds(CHORD, 3);
        assertTrue(broken.isEmpty(), broken.size() + " schedules lost acknowledged writes; first: "
                + (broken.isEmpty() ? "" : broken.get(0)));
    }
}
