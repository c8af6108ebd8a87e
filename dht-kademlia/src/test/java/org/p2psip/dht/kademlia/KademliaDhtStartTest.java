package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtBackends;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.DhtException;
import org.p2psip.core.net.HostPort;

/** Start-up through the provider: found by name, and every failure is one line within the start timeout. */
class KademliaDhtStartTest {

    private static final Map<String, String> QUICK = Map.of("overlay-secret", LoopbackOverlay.SECRET,
            "start-timeout-seconds", "2", "rpc-timeout-ms", "300", "retry-ms", "50");

    private static DhtException startFailure(DhtConfig config) {
        long started = System.nanoTime();
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> new KademliaDhtProvider().start(config).get(10, TimeUnit.SECONDS));
        assertTrue(System.nanoTime() - started < Duration.ofSeconds(6).toNanos(), "start failure took too long");
        DhtException d = assertInstanceOf(DhtException.class, e.getCause());
        assertFalse(d.getMessage().contains("\n"), d.getMessage());
        return d;
    }

    private static DhtConfig config(Optional<HostPort> overlay, List<HostPort> bootstrap, Map<String, String> opts) {
        return new DhtConfig(new HostPort("127.0.0.1", 5060), overlay, bootstrap, 3, Clock.systemUTC(), opts);
    }

    @Test
    void providerIsFoundByName() {
        assertEquals(KademliaDhtProvider.NAME, DhtBackends.byName("kademlia").name());
    }

    @Test
    void missingOverlayIsRefused() {
        assertTrue(startFailure(config(Optional.empty(), List.of(), QUICK)).getMessage().contains("--overlay"));
    }

    @Test
    void busyUdpPortIsRefused() throws Exception {
        try (DatagramSocket busy = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
            HostPort taken = new HostPort("127.0.0.1", busy.getLocalPort());
            assertTrue(startFailure(config(Optional.of(taken), List.of(), QUICK)).getMessage()
                    .contains("already in use"));
        }
    }

    @Test
    void silentBootstrapFailsWithinTheStartTimeout() throws Exception {
        try (DatagramSocket silent = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
            HostPort seed = new HostPort("127.0.0.1", silent.getLocalPort());
            String message = startFailure(config(Optional.of(new HostPort("127.0.0.1", 0)), List.of(seed), QUICK))
                    .getMessage();
            assertTrue(message.contains("could not join via"), message);
        }
    }

    @Test
    void seedWithAnotherSecretIsIndistinguishableFromSilenceAndFails() throws Exception {
        Dht seed = new KademliaDhtProvider().start(config(Optional.of(new HostPort("127.0.0.1", 0)), List.of(),
                QUICK)).get(10, TimeUnit.SECONDS);
        try {
            HostPort seedAddress = ((KademliaDht) seed).contact().overlay();
            Map<String, String> wrong = new java.util.HashMap<>(QUICK);
            wrong.put("overlay-secret", "another-secret");
            String message = startFailure(config(Optional.of(new HostPort("127.0.0.1", 0)), List.of(seedAddress),
                    wrong)).getMessage();
            assertTrue(message.contains("overlay-secret"), message);
        } finally {
            seed.close();
        }
    }

    @Test
    void aSlowSeedIsRetriedUntilItAnswers() throws Exception {
        // The joiner starts first, pointed at a port where nothing runs yet; the seed comes up a moment later.
        int port;
        try (DatagramSocket probe = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
            port = probe.getLocalPort();
        }
        HostPort seedAddress = new HostPort("127.0.0.1", port);
        Map<String, String> patient = new java.util.HashMap<>(QUICK);
        patient.put("start-timeout-seconds", "10");
        CompletableFuture<Dht> joiner = new KademliaDhtProvider().start(config(Optional.of(
                new HostPort("127.0.0.1", 0)), List.of(seedAddress), patient));
        Dht seed = CompletableFuture.supplyAsync(() -> null,
                        CompletableFuture.delayedExecutor(700, TimeUnit.MILLISECONDS))
                .thenCompose(v -> new KademliaDhtProvider().start(config(Optional.of(seedAddress), List.of(), patient)))
                .get(10, TimeUnit.SECONDS);
        try {
            Dht joined = joiner.get(15, TimeUnit.SECONDS);
            joined.close();
        } finally {
            seed.close();
        }
    }

    @Test
    void unknownOptionIsNamed() {
        assertTrue(startFailure(config(Optional.of(new HostPort("127.0.0.1", 0)), List.of(), Map.of("kk", "1")))
                .getMessage().contains("unknown kademlia option 'kk'"));
    }
}
