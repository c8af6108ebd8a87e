package org.p2psip.core.dht.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.DhtBackends;
import org.p2psip.core.dht.DhtConfig;
import org.p2psip.core.dht.DhtException;
import org.p2psip.core.dht.ManualClock;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.net.HostPort;

class LocalDhtProviderTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final HostPort sip = new HostPort("127.0.0.1", 5060);

    @Test
    void localBackendIsFoundByName() throws Exception {
        assertTrue(DhtBackends.names().contains("local"));
        try (Dht dht = DhtBackends.byName("local").start(DhtConfig.standalone(sip, clock)).get(5, TimeUnit.SECONDS)) {
            assertEquals("local", dht.backendName());
            assertEquals(Optional.of(sip), dht.self().sip());
            assertEquals(dht.self(), dht.placement("any").get().owner());
        }
    }

    @Test
    void unknownBackendNameListsTheAvailableOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DhtBackends.byName("pastry"));
        assertTrue(e.getMessage().contains("pastry") && e.getMessage().contains("local"), e.getMessage());
    }

    @Test
    void localBackendRefusesToBootstrap() {
        DhtConfig config = new DhtConfig(sip, Optional.empty(), List.of(new HostPort("127.0.0.1", 7001)), 1, clock, Map.of());
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> new LocalDhtProvider().start(config).get(5, TimeUnit.SECONDS));
        assertInstanceOf(DhtException.class, e.getCause());
    }

    @Test
    void purgeDropsOnlyExpiredEntries() {
        LocalDht.Store store = new LocalDht.Store(clock, new Peer("p", Optional.empty()));
        LocalDht dht = new LocalDht(store, new Peer("p", Optional.empty()), () -> { });
        dht.putIfVersion("short", Dht.ABSENT, new byte[] {1}, clock.instant().plusSeconds(5));
        dht.putIfVersion("long", Dht.ABSENT, new byte[] {2}, clock.instant().plusSeconds(500));
        clock.advance(Duration.ofSeconds(6));
        assertEquals(1, store.purgeExpired());
        assertEquals(1, store.size());
    }

    @Test
    void closedHandleRunsItsCloseActionOnce() {
        int[] closes = {0};
        LocalDht dht = new LocalDht(new LocalDht.Store(clock, new Peer("p", Optional.empty())),
                new Peer("p", Optional.empty()), () -> closes[0]++);
        dht.close();
        dht.close();
        assertEquals(1, closes[0]);
        ExecutionException e = assertThrows(ExecutionException.class, () -> dht.get("k").get());
        assertInstanceOf(IllegalStateException.class, e.getCause());
    }
}
