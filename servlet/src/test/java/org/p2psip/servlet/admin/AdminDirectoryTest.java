package org.p2psip.servlet.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.ManualClock;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.local.LocalDht;
import org.p2psip.core.net.HostPort;

class AdminDirectoryTest {

    private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");
    private static final HostPort ADMIN_1 = HostPort.parse("127.0.0.1:8001");
    private static final HostPort ADMIN_2 = HostPort.parse("127.0.0.1:8002");
    private static final HostPort SIP_1 = HostPort.parse("127.0.0.1:5061");
    private static final HostPort SIP_2 = HostPort.parse("127.0.0.1:5062");

    private final ManualClock clock = new ManualClock(T0);
    private final LocalDht.Store store = new LocalDht.Store(clock, new Peer("store", Optional.empty()));

    private AdminDirectory directory(HostPort admin, HostPort sip) {
        return new AdminDirectory(new LocalDht(store, new Peer(admin.toString(), Optional.empty()), () -> { }), admin,
                sip, clock::instant);
    }

    @Test
    void everyNodeThatRefreshedIsListedByEachOfThem() {
        AdminDirectory one = directory(ADMIN_1, SIP_1);
        AdminDirectory two = directory(ADMIN_2, SIP_2);

        assertEquals(true, one.refresh().join());
        assertEquals(true, two.refresh().join());

        List<AdminDirectory.Entry> seen = one.live().join();
        assertEquals(List.of(ADMIN_1, ADMIN_2), seen.stream().map(AdminDirectory.Entry::admin).toList());
        assertEquals(SIP_2, seen.get(1).sip());
        assertEquals(seen, two.live().join());
    }

    @Test
    void aNodeThatStopsRefreshingFallsOutAfterTheStaleTime() {
        AdminDirectory one = directory(ADMIN_1, SIP_1);
        AdminDirectory two = directory(ADMIN_2, SIP_2);
        one.refresh().join();
        two.refresh().join();

        clock.advance(AdminDirectory.STALE.minusSeconds(10));
        one.refresh().join();
        clock.advance(Duration.ofSeconds(20));

        assertEquals(List.of(ADMIN_1), one.live().join().stream().map(AdminDirectory.Entry::admin).toList());
    }

    @Test
    void aRefreshReplacesTheNodesOwnEntryRatherThanAddingOne() {
        AdminDirectory one = directory(ADMIN_1, SIP_1);
        one.refresh().join();
        clock.advance(AdminDirectory.REFRESH);
        one.refresh().join();

        List<AdminDirectory.Entry> seen = one.live().join();
        assertEquals(1, seen.size(), seen.toString());
        assertEquals(T0.plus(AdminDirectory.REFRESH), seen.get(0).seen());
    }

    @Test
    void linesThatDoNotParseAreSkipped() {
        byte[] value = ("127.0.0.1:8001 127.0.0.1:5061 1700000000000\nnonsense\n127.0.0.1:8002 x:y z\n")
                .getBytes(StandardCharsets.UTF_8);

        assertEquals(List.of(new AdminDirectory.Entry(ADMIN_1, SIP_1, Instant.ofEpochMilli(1_700_000_000_000L))),
                AdminDirectory.decode(value));
    }
}
