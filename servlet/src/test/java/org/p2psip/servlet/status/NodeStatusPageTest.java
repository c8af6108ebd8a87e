package org.p2psip.servlet.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.KeyRangeSet;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.Placement;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.dht.local.LocalDht;
import org.p2psip.core.metrics.DhtLatencies;
import org.p2psip.core.metrics.DhtOperation;
import org.p2psip.core.metrics.DhtOutcome;
import org.p2psip.core.metrics.SipTraffic;
import org.p2psip.core.net.HostPort;

/** A node's page from counters moved by hand between samples; no sockets, no sleeping. */
class NodeStatusPageTest {

    private static final Peer SELF = new Peer("n1", Optional.empty());
    private static final HostPort SIP = new HostPort("127.0.0.1", 5061);
    private static final long SECOND = 1_000_000_000L;

    private final SipTraffic traffic = new SipTraffic();
    private final DhtLatencies latencies = new DhtLatencies();

    /** A one-node local DHT that says it knows two peers, one of them without a SIP address. */
    private final Dht dht = new KnowingPeers(new LocalDht(new LocalDht.Store(Clock.systemUTC(), SELF), SELF, () -> { }),
            List.of(new Peer("n2", Optional.of(new HostPort("127.0.0.1", 5062))), new Peer("n3", Optional.empty())));

    private record KnowingPeers(Dht local, List<Peer> knownPeers) implements Dht {
        @Override
        public String backendName() {
            return local.backendName();
        }

        @Override
        public Peer self() {
            return local.self();
        }

        @Override
        public CompletableFuture<Optional<VersionedValue>> get(String key) {
            return local.get(key);
        }

        @Override
        public CompletableFuture<Boolean> putIfVersion(String key, long expectedVersion, byte[] value,
                                                       Instant expiresAt) {
            return local.putIfVersion(key, expectedVersion, value, expiresAt);
        }

        @Override
        public CompletableFuture<Boolean> removeIfVersion(String key, long expectedVersion) {
            return local.removeIfVersion(key, expectedVersion);
        }

        @Override
        public CompletableFuture<Placement> placement(String key) {
            return local.placement(key);
        }

        @Override
        public Optional<KeyRangeSet> ownedRanges() {
            return local.ownedRanges();
        }

        @Override
        public long storedEntries() {
            return local.storedEntries();
        }

        @Override
        public void close() {
            local.close();
        }
    }

    private final NodeStatusPage page = new NodeStatusPage(SIP, dht, traffic, latencies, 0);

    @Test
    void ratesArePerSecondBetweenSamplesAndTheFirstSampleOnlyStartsThem() {
        page.sample(1_000, 10 * SECOND);
        assertEquals(0, chart(0).size(), "one reading is no rate yet");
        for (int i = 0; i < 50; i++) {
            traffic.received("REGISTER");
            traffic.answeredFinal("REGISTER", i < 40 ? 200 : 401, 2_000_000);
        }
        traffic.received("INVITE");
        traffic.received("OPTIONS");
        traffic.answered("INVITE", 503);

        page.sample(3_000, 12 * SECOND);

        assertEquals("{\"title\":\"Requests per second\",\"unit\":\"/s\",\"series\":[\"REGISTER\",\"INVITE\","
                + "\"other\"],\"points\":[[3000,25,0.500,0.500]]}", chart(0).json());
        assertEquals("{\"title\":\"Responses per second by class\",\"unit\":\"/s\",\"series\":[\"2xx\",\"4xx\","
                + "\"5xx-6xx\"],\"points\":[[3000,20,5,0.500]]}", chart(1).json());
    }

    @Test
    void latenciesAreTheSecondsOwnPercentilesAndAQuietSecondIsAGap() {
        page.sample(1_000, SECOND);
        for (int i = 0; i < 100; i++) {
            traffic.answeredFinal("REGISTER", 200, 40_000_000);
            latencies.record(DhtOperation.PUT, DhtOutcome.OK, 800_000);
        }
        latencies.record(DhtOperation.PLACEMENT, DhtOutcome.OK, 20_000_000_000L);
        page.sample(2_000, 2 * SECOND);
        page.sample(3_000, 3 * SECOND);

        // All in the (30 ms, 50 ms] bucket: the median half way, the 99th near its top.
        assertEquals("{\"title\":\"REGISTER time to final response\",\"unit\":\"ms\",\"series\":[\"p50\",\"p99\"],"
                + "\"points\":[[2000,40,49.800],[3000,null,null]]}", chart(2).json());
        // Placement is not a key operation: its 20 s does not reach the chart.
        assertEquals("{\"title\":\"DHT get, put and remove time\",\"unit\":\"ms\",\"series\":[\"p50\",\"p99\"],"
                + "\"points\":[[2000,0.750,0.995],[3000,null,null]]}", chart(3).json());
    }

    @Test
    void theMembersAreThisNodeThenThePeersItKnows() {
        StatusView v = page.view(192_000);

        assertEquals(List.of(List.of("n1", "127.0.0.1:5061", "this node"), List.of("n2", "127.0.0.1:5062", "peer"),
                List.of("n3", "-", "peer")), v.members());
        assertEquals("p2psip node 127.0.0.1:5061", v.title());
        assertTrue(v.facts().contains(new StatusView.Fact("backend", "local")), v.facts().toString());
        assertTrue(v.facts().contains(new StatusView.Fact("owns", "100.0 %")), v.facts().toString());
        assertTrue(v.facts().contains(new StatusView.Fact("peers known", "2")), v.facts().toString());
        assertTrue(v.facts().contains(new StatusView.Fact("up for", "3 min 12 s")), v.facts().toString());
    }

    @Test
    void aClockThatStandsStillAddsNoPoint() {
        page.sample(1_000, 5 * SECOND);
        traffic.received("REGISTER");
        page.sample(1_000, 5 * SECOND);

        assertEquals(0, chart(0).size());
    }

    private ChartHistory chart(int i) {
        return page.view(0).charts().get(i);
    }
}
