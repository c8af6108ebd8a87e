package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.time.Duration;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.p2psip.core.overlay.SchedulingLag;
import org.p2psip.core.overlay.TimeoutSuspicion;

/**
 * When a node takes its successor for dead, on a 6-bit circle over the
 * in-memory network with a manual clock: not for timeouts while it lags
 * itself, after a window of silence while it keeps up, and at once when the
 * successor refuses.
 */
class SelfLagSuspicionTest {

    private static final IdSpace SPACE = new IdSpace(6);
    private static final long SECOND = 1_000_000_000L;

    private final SimulatedNetwork net = new SimulatedNetwork(SPACE, 3);
    private final SchedulingLag lag = new SchedulingLag(0, 60 * SECOND);
    private long now;
    private RingMaintenance node;

    @BeforeEach
    void formRing() {
        node = net.add(BigInteger.valueOf(10), SimulatedNetwork.address(10),
                new TimeoutSuspicion<>(Duration.ofSeconds(3), Duration.ofSeconds(1), lag), () -> now);
        net.add(BigInteger.valueOf(30), SimulatedNetwork.address(30));
        net.add(BigInteger.valueOf(50), SimulatedNetwork.address(50));
        net.formIdealRing();
    }

    private void stabilizeEachSecondFor(int seconds) {
        for (int i = 0; i < seconds; i++) {
            now += SECOND;
            node.stabilize().join();
        }
    }

    private BigInteger successor() {
        return node.state().successor().id();
    }

    @Test
    void timeoutsWhileSelfLagsDoNotWriteOffPeer() {
        lag.due(0);
        net.slow(SimulatedNetwork.address(30), true);
        stabilizeEachSecondFor(10);
        assertEquals(BigInteger.valueOf(30), successor());
        assertEquals(0, node.peersWrittenOff());
    }

    @Test
    void silentPeerIsWrittenOffAndCountedWhileThisNodeKeepsUp() {
        net.slow(SimulatedNetwork.address(30), true);
        stabilizeEachSecondFor(3);
        assertEquals(BigInteger.valueOf(30), successor(), "silent for 2 s of a 3 s window");
        stabilizeEachSecondFor(1);
        assertEquals(BigInteger.valueOf(50), successor());
        assertEquals(1, node.peersWrittenOff());
    }

    @Test
    void aSilenceSpentPartlyBehindNeedsTheWindowKeptUp() {
        net.slow(SimulatedNetwork.address(30), true);
        stabilizeEachSecondFor(1);
        lag.due(now);
        stabilizeEachSecondFor(5);
        lag.ran(now);
        stabilizeEachSecondFor(2);
        assertEquals(BigInteger.valueOf(30), successor(), "silent 7 s, of which 2 s kept up");
        stabilizeEachSecondFor(1);
        assertEquals(BigInteger.valueOf(50), successor());
    }

    @Test
    void refusedPeerIsWrittenOffAtOnce() {
        lag.due(0);
        now = 5 * SECOND;
        net.crash(SimulatedNetwork.address(30));
        node.stabilize().join();
        assertEquals(BigInteger.valueOf(50), successor());
        assertEquals(0, node.peersWrittenOff(), "a refusal is no silence");
    }

    @Test
    void callsHeldBackByAFullWindowWriteNobodyOff() {
        net.heldBack(SimulatedNetwork.address(30), true);
        stabilizeEachSecondFor(10);
        assertEquals(BigInteger.valueOf(30), successor());
        assertEquals(0, node.peersWrittenOff());
    }
}
