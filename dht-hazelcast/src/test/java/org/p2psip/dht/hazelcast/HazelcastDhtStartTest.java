package org.p2psip.dht.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtBackends;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.DhtException;
import org.p2psip.core.net.HostPort;

/**
 * Start-up either joins or fails within a bounded time with one line an
 * operator can act on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HazelcastDhtStartTest {

    private static final Duration BOUND = Duration.ofSeconds(8);
    private final LoopbackMembers members = new LoopbackMembers(2, Clock.systemUTC());

    @Test
    void isFoundByName() {
        assertInstanceOf(HazelcastDhtProvider.class, DhtBackends.byName("hazelcast"));
    }

    @Test
    void unreachableBootstrapFailsWithinTheBoundNamingTheSeed() {
        HostPort nobody = new HostPort(LoopbackMembers.HOST, LoopbackMembers.freePort());
        DhtException failure = failureOf(members.config(LoopbackMembers.freePort(), LoopbackMembers.freePort(),
                List.of(nobody), Map.of("start-timeout-seconds", Long.toString(BOUND.toSeconds()))));
        assertTrue(failure.getMessage().contains("could not join any of " + nobody)
                        || failure.getMessage().contains("did not start within"),
                failure.getMessage());
    }

    @Test
    void busyOverlayPortFailsSayingSo() throws Exception {
        try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getByName(LoopbackMembers.HOST))) {
            DhtException failure = failureOf(members.config(LoopbackMembers.freePort(), busy.getLocalPort(),
                    List.of(), Map.of()));
            assertTrue(failure.getMessage().contains("already in use"), failure.getMessage());
            assertTrue(failure.getMessage().contains(":" + busy.getLocalPort()), failure.getMessage());
        }
    }

    @Test
    void memberOfAnotherClusterNameIsNotJoined() {
        try (LoopbackMembers other = new LoopbackMembers(2, Clock.systemUTC()).start(1)) {
            HostPort seed = LoopbackMembers.overlayOf(other.nodes().get(0));
            DhtException failure = failureOf(members.config(LoopbackMembers.freePort(), LoopbackMembers.freePort(),
                    List.of(seed), Map.of("cluster-name", "elsewhere",
                            "start-timeout-seconds", Long.toString(BOUND.toSeconds()))));
            assertTrue(failure.getMessage().contains("could not join any of " + seed)
                            || failure.getMessage().contains("did not start within"),
                    failure.getMessage());
            assertEquals(1, other.nodes().get(0).hazelcast().getCluster().getMembers().size());
        }
    }

    @Test
    void memberModeWithoutOverlayIsRefusedAtOnce() {
        DhtConfig config = new DhtConfig(new HostPort(LoopbackMembers.HOST, 5060), Optional.empty(), List.of(), 1,
                Clock.systemUTC(), Map.of());
        assertTrue(failureOf(config).getMessage().contains("--overlay"));
    }

    @Test
    void unknownOptionIsRefusedAtOnce() {
        DhtException failure = failureOf(members.config(LoopbackMembers.freePort(), LoopbackMembers.freePort(),
                List.of(), Map.of("clustre-name", "typo")));
        assertTrue(failure.getMessage().contains("clustre-name"), failure.getMessage());
    }

    @Test
    void clientWithNoClusterToReachFailsWithinTheBound() {
        HostPort nobody = new HostPort(LoopbackMembers.HOST, LoopbackMembers.freePort());
        DhtConfig config = new DhtConfig(new HostPort(LoopbackMembers.HOST, 5060), Optional.empty(),
                List.of(nobody), 2, Clock.systemUTC(),
                Map.of("client", "true", "start-timeout-seconds", Long.toString(BOUND.toSeconds())));
        DhtException failure = failureOf(config);
        assertTrue(failure.getMessage().contains(nobody.toString()), failure.getMessage());
    }

    @Test
    void startReturnsBeforeTheMemberIsUp() {
        long before = System.nanoTime();
        CompletableFuture<Dht> starting = new HazelcastDhtProvider().start(members.config(
                LoopbackMembers.freePort(), LoopbackMembers.freePort(), List.of(), Map.of()));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);
        assertFalse(starting.isDone() && tookMillis > 500, "start blocked its caller for " + tookMillis + " ms");
        LoopbackMembers.<Dht>await(starting).close();
    }

    /** The start's failure, checked to have come within the bound and to fit on one line. */
    private static DhtException failureOf(DhtConfig config) {
        long before = System.nanoTime();
        CompletableFuture<Dht> start = new HazelcastDhtProvider().start(config);
        CompletionException thrown = assertThrows(CompletionException.class,
                () -> start.orTimeout(BOUND.toSeconds() + 10, TimeUnit.SECONDS).join().close());
        Duration took = Duration.ofNanos(System.nanoTime() - before);
        assertTrue(took.compareTo(BOUND.plusSeconds(3)) < 0, "failing took " + took);
        DhtException failure = assertInstanceOf(DhtException.class, thrown.getCause());
        assertFalse(failure.getMessage().contains("\n"), "not one line: " + failure.getMessage());
        System.out.println("start failed as expected in " + took.toMillis() + " ms: " + failure.getMessage());
        return failure;
    }
}
