package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.overlay.OverlayRuntime;
import org.p2psip.core.overlay.simulated.SimulatedOverlayNetwork;
import org.p2psip.core.overlay.simulated.VirtualTime;

/**
 * The owners' periodic re-push to their replicas (anti-entropy), on a
 * simulated three-node ring in virtual time: once a replica has taken every
 * key, a re-push carries only what changed since, and every
 * {@link RangeCustody#WHOLE_PUSH_EVERY}th carries every key again.
 */
class ReplicaPushTest {

    private static final int KEYS = 300;
    private static final Duration ANTI_ENTROPY = Duration.ofMillis(500L * RangeCustody.ANTI_ENTROPY_ROUNDS);

    private final VirtualTime time = new VirtualTime();
    private final SimulatedOverlayNetwork network =
            new SimulatedOverlayNetwork(time, 11, SimulatedOverlayNetwork.Semantics.STREAM);
    /** Bytes of replica pushes and replica writes received, by every node. */
    private final AtomicLong replicated = new AtomicLong();

    private ChordDht start(int index, List<HostPort> seeds) {
        HostPort address = new HostPort("10.9.0." + index, 4000);
        OverlayRuntime runtime = new OverlayRuntime(time.executor("chord-" + index), time.clock(), time::nanos, index);
        ChordDht dht = new ChordDht(new NodeRef(IdSpace.SHA1.idOf(address.toString()), address, Optional.of(address)),
                runtime, 2, ChordOptions.parse(Map.of(), 2));
        dht.attach(network.bind(address, (type, payload) -> {
            if (type == ChordWire.REPLICATE) {
                replicated.addAndGet(payload.length);
            }
            return dht.handle(type, payload);
        }));
        CompletableFuture<Void> joined = dht.join(seeds).thenRun(dht::startMaintenance);
        assertTrue(time.runUntilDone(joined, Duration.ofSeconds(30)), "node " + index + " joined");
        return dht;
    }

    private void write(ChordDht dht, String key) {
        CompletableFuture<Boolean> put = dht.putIfVersion(key, Dht.ABSENT, new byte[200],
                time.clock().instant().plus(Duration.ofHours(1)));
        assertTrue(time.runUntilDone(put, Duration.ofSeconds(10)) && put.join(), "wrote " + key);
    }

    /** Bytes replicated during each anti-entropy period of {@code periods}. */
    private List<Long> perPeriod(int periods) {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < periods; i++) {
            long before = replicated.get();
            time.runFor(ANTI_ENTROPY);
            out.add(replicated.get() - before);
        }
        return out;
    }

    @Test
    void aReplicaThatHasEveryKeyIsSentOnlyWhatChangedUntilTheWholeRePush() {
        ChordDht first = start(1, List.of());
        HostPort seed = new HostPort("10.9.0.1", 4000);
        start(2, List.of(seed));
        start(3, List.of(seed));
        time.runFor(Duration.ofSeconds(10));
        for (int i = 0; i < KEYS; i++) {
            write(first, "k" + i);
        }
        long keyBytes = KEYS * 200L;
        // Every replica has taken every key by now: the writes reached them, and a re-push has passed.
        perPeriod(2);

        write(first, "one-more");
        List<Long> quiet = perPeriod(4);
        assertTrue(quiet.stream().allMatch(b -> b < keyBytes / 20),
                "re-pushes of what changed carry a key or two, not all " + KEYS + ": " + quiet);

        List<Long> untilWhole = perPeriod(RangeCustody.WHOLE_PUSH_EVERY);
        // The nodes count their rounds from their own start, so their whole re-pushes fall in different periods.
        assertTrue(untilWhole.stream().mapToLong(Long::longValue).sum() >= keyBytes,
                "every " + RangeCustody.WHOLE_PUSH_EVERY + "th re-push carries every key again: " + untilWhole);
    }
}
