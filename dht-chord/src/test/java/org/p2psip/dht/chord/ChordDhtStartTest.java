package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtBackends;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.DhtException;
import org.p2psip.core.net.HostPort;

/** Start-up failures are one-line {@link DhtException}s within the start bound. */
class ChordDhtStartTest {

    private final LoopbackRing ring = new LoopbackRing(2, Clock.systemUTC());

    @AfterEach
    void stop() {
        ring.close();
    }

    private static DhtException startFailure(CompletableFuture<Dht> start) {
        long t0 = System.nanoTime();
        ExecutionException e = assertThrows(ExecutionException.class, () -> start.get(15, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(12), "failed within the start bound");
        DhtException d = assertInstanceOf(DhtException.class, e.getCause());
        assertFalse(d.getMessage().contains("\n"), d.getMessage());
        return d;
    }

    @Test
    void providerIsFoundByName() {
        assertEquals(ChordDhtProvider.NAME, DhtBackends.byName("chord").name());
    }

    @Test
    void missingOverlayAddressIsNamed() {
        DhtConfig config = new DhtConfig(new HostPort("127.0.0.1", 5060), Optional.empty(), List.of(), 1,
                Clock.systemUTC(), Map.of());
        assertTrue(startFailure(new ChordDhtProvider().start(config)).getMessage().contains("--overlay"));
    }

    @Test
    void busyOverlayPortFails() throws Exception {
        try (ServerSocket busy = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            DhtConfig config = new DhtConfig(new HostPort("127.0.0.1", 5060),
                    Optional.of(new HostPort("127.0.0.1", busy.getLocalPort())), List.of(), 1, Clock.systemUTC(),
                    LoopbackRing.fastOptions());
            String message = startFailure(new ChordDhtProvider().start(config)).getMessage();
            assertTrue(message.contains("127.0.0.1:" + busy.getLocalPort()), message);
        }
    }

    @Test
    void unreachableBootstrapFails() throws Exception {
        int nobody;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            nobody = s.getLocalPort();
        }
        HostPort missing = new HostPort("127.0.0.1", nobody);
        String message = startFailure(ring.startNode(List.of(missing), Map.of())).getMessage();
        assertTrue(message.contains("could not join") && message.contains(missing.toString()), message);
    }

    @Test
    void nodeWithAnotherSecretCannotJoin() {
        ChordDht member = ring.add();
        String message = startFailure(ring.startNode(List.of(member.node().overlay()),
                Map.of("overlay-secret", "not-the-ring-secret"))).getMessage();
        assertTrue(message.contains("overlay-secret"), message);
        assertEquals(List.of(member.node()), member.ringSnapshot().successors(), "the ring never saw the intruder");
    }

    @Test
    void nodesJoiningThroughASeedTakeIdsThatShareTheRingWithinAFactorOfTwoOfTheMean() {
        ring.start(4);
        List<java.math.BigInteger> ids = ring.nodes().stream().map(n -> n.node().id()).sorted().toList();
        IdSpace space = IdSpace.SHA1;
        for (int i = 0; i < ids.size(); i++) {
            double share = space.distance(ids.get((i + ids.size() - 1) % ids.size()), ids.get(i)).doubleValue()
                    / space.size().doubleValue();
            assertTrue(share >= 0.125 && share <= 0.5, "share " + share + " of " + ids);
        }
    }

    @Test
    void badOptionsAreOneLineErrors() {
        assertTrue(startFailure(ring.startNode(List.of(), Map.of("successors", "zero"))).getMessage()
                .contains("successors"));
        assertTrue(startFailure(ring.startNode(List.of(), Map.of("no-such-option", "1"))).getMessage()
                .contains("no-such-option"));
    }
}
