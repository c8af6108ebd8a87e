package org.p2psip.core.location;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.Dht;
import org.p2psip.core.dht.ManualClock;
import org.p2psip.core.dht.Peer;
import org.p2psip.core.dht.Placement;
import org.p2psip.core.dht.VersionedValue;
import org.p2psip.core.dht.local.LocalDht;
import org.p2psip.core.location.RegisterOutcome.Accepted;
import org.p2psip.core.location.RegisterOutcome.Rejected;
import org.p2psip.core.net.HostPort;

class LocationServiceTest {

    private static final Instant START = Instant.parse("2024-05-01T12:00:00Z");
    private static final RegistrarPolicy POLICY = new RegistrarPolicy(60, 3600, 7200, 10);
    private static final AddressOfRecord AOR = AddressOfRecord.parse("sip:alice@atlanta.com");
    private static final HostPort SOURCE = new HostPort("192.0.2.10", 5060);

    private final ManualClock clock = new ManualClock(START);
    private final Peer owner = new Peer("node-1", Optional.empty());
    private final LocalDht.Store store = new LocalDht.Store(clock, owner);
    private final LocalDht dht = new LocalDht(store, owner, () -> { });
    private final LocationService service = new LocationService(dht, POLICY, clock);

    private static RegisterRequest register(String callId, long cseq, OptionalLong expires, ContactSpec... contacts) {
        return new RegisterRequest(AOR, List.of(contacts), expires, callId, cseq, List.of(), SOURCE, "UDP");
    }

    private static ContactSpec contact(String uri, long expires) {
        return new ContactSpec(uri, OptionalLong.of(expires), Binding.Q_UNSPECIFIED, Map.of());
    }

    private static ContactSpec contact(String uri, long expires, int q) {
        return new ContactSpec(uri, OptionalLong.of(expires), q, Map.of());
    }

    private static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private List<String> lookup(LocationService s, AddressOfRecord aor) {
        return await(s.lookup(aor)).stream().map(Binding::contact).toList();
    }

    private Optional<VersionedValue> stored() {
        return await(dht.get(AOR.key()));
    }

    @Test
    void registeredContactIsFoundByLookup() {
        Accepted a = assertInstanceOf(Accepted.class,
                await(service.register(register("c1", 1, OptionalLong.empty(), contact("sip:alice@192.0.2.10", 600)))));
        assertTrue(a.changed());
        List<Binding> found = await(service.lookup(AOR));
        assertEquals(1, found.size());
        assertEquals("sip:alice@192.0.2.10", found.get(0).contact());
        assertEquals(START.plusSeconds(600), found.get(0).expiresAt());
    }

    @Test
    void lookupOfAnUnknownAorIsEmpty() {
        assertTrue(await(service.lookup(AddressOfRecord.parse("sip:nobody@atlanta.com"))).isEmpty());
    }

    @Test
    void lookupUsesTheCanonicalAor() {
        await(service.register(register("c1", 1, OptionalLong.empty(), contact("sip:alice@192.0.2.10", 600))));
        assertEquals(List.of("sip:alice@192.0.2.10"),
                lookup(service, AddressOfRecord.parse("sips:%61lice@AtLanTa.CoM;transport=tls")));
        assertTrue(lookup(service, AddressOfRecord.parse("sip:Alice@atlanta.com")).isEmpty());
    }

    @Test
    void lookupListsTargetsInForwardingOrder() {
        await(service.register(register("c1", 1, OptionalLong.empty(), contact("sip:low@192.0.2.1", 600, 100),
                contact("sip:high@192.0.2.2", 600, 900), contact("sip:mid@192.0.2.3", 600, 500))));
        assertEquals(List.of("sip:high@192.0.2.2", "sip:mid@192.0.2.3", "sip:low@192.0.2.1"), lookup(service, AOR));
    }

    @Test
    void storedValueLivesExactlyAsLongAsItsLongestBinding() {
        await(service.register(register("c1", 1, OptionalLong.empty(), contact("sip:a@192.0.2.1", 600),
                contact("sip:b@192.0.2.2", 1800))));
        assertEquals(START.plusSeconds(1800), stored().orElseThrow().expiresAt());
    }

    @Test
    void rejectedRequestWritesNothing() {
        Rejected r = assertInstanceOf(Rejected.class, await(service.register(
                register("c1", 1, OptionalLong.empty(), contact("sip:a@192.0.2.1", 600), contact("sip:b@192.0.2.2", 5)))));
        assertEquals(423, r.statusCode());
        assertEquals(0, store.size());
        assertTrue(stored().isEmpty());
    }

    @Test
    void rejectedUpdateLeavesTheStoredValueAndVersionAlone() {
        await(service.register(register("c1", 5, OptionalLong.empty(), contact("sip:a@192.0.2.1", 600))));
        VersionedValue before = stored().orElseThrow();
        Rejected r = assertInstanceOf(Rejected.class, await(service.register(
                register("c1", 4, OptionalLong.empty(), contact("sip:b@192.0.2.2", 600), contact("sip:a@192.0.2.1", 600)))));
        assertEquals(500, r.statusCode());
        VersionedValue after = stored().orElseThrow();
        assertEquals(before.version(), after.version());
        assertEquals(List.of("sip:a@192.0.2.1"), lookup(service, AOR));
    }

    @Test
    void fetchDoesNotWrite() {
        await(service.register(register("c1", 1, OptionalLong.empty(), contact("sip:a@192.0.2.1", 600))));
        long version = stored().orElseThrow().version();
        Accepted a = assertInstanceOf(Accepted.class, await(service.register(register("c1", 2, OptionalLong.empty()))));
        assertFalse(a.changed());
        assertEquals(1, a.bindings().size());
        assertEquals(version, stored().orElseThrow().version());
    }

    /** A DHT whose first write takes effect but is reported refused, as when its acknowledgement was lost. */
    private final class LostAcknowledgement implements org.p2psip.core.dht.Dht {
        int writes;

        @Override
        public String backendName() {
            return dht.backendName();
        }

        @Override
        public Peer self() {
            return dht.self();
        }

        @Override
        public CompletableFuture<Optional<VersionedValue>> get(String key) {
            return dht.get(key);
        }

        @Override
        public CompletableFuture<Boolean> putIfVersion(String key, long expectedVersion, byte[] value, Instant expiresAt) {
            return dht.putIfVersion(key, expectedVersion, value, expiresAt).thenApply(applied -> applied && ++writes > 1);
        }

        @Override
        public CompletableFuture<Boolean> removeIfVersion(String key, long expectedVersion) {
            return dht.removeIfVersion(key, expectedVersion).thenApply(applied -> applied && ++writes > 1);
        }

        @Override
        public CompletableFuture<org.p2psip.core.dht.Placement> placement(String key) {
            return dht.placement(key);
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aWriteThatTookEffectThoughReportedRefusedIsNotRefusedAsOutOfOrder() {
        LostAcknowledgement lossy = new LostAcknowledgement();
        LocationService overLossy = new LocationService(lossy, POLICY, clock);

        RegisterOutcome first = await(overLossy.register(register("c1", 1, OptionalLong.empty(),
                contact("sip:a@192.0.2.1", 600))));

        assertInstanceOf(Accepted.class, first, "its own write, found on the re-read, is this request's");
        assertEquals(List.of("sip:a@192.0.2.1"), lookup(service, AOR));
        assertEquals(1, stored().orElseThrow().version(), "written once");
        RegisterOutcome removal = await(overLossy.register(register("c1", 2, OptionalLong.empty(),
                contact("sip:a@192.0.2.1", 0))));
        assertInstanceOf(Accepted.class, removal);
        assertTrue(stored().isEmpty());
    }

    @Test
    void lookupAfterExpiryIsEmpty() {
        await(service.register(register("c1", 1, OptionalLong.empty(), contact("sip:a@192.0.2.1", 60))));
        clock.advance(Duration.ofSeconds(59));
        assertEquals(List.of("sip:a@192.0.2.1"), lookup(service, AOR));
        clock.advance(Duration.ofSeconds(1));
        assertTrue(lookup(service, AOR).isEmpty());
    }

    @Test
    void lookupDropsTheExpiredOfSeveralBindings() {
        await(service.register(register("c1", 1, OptionalLong.empty(), contact("sip:short@192.0.2.1", 60),
                contact("sip:long@192.0.2.2", 600))));
        clock.advance(Duration.ofSeconds(61));
        assertEquals(List.of("sip:long@192.0.2.2"), lookup(service, AOR));
    }

    @Test
    void refreshExtendsTheBindingPastItsFirstExpiry() {
        await(service.register(register("c1", 1, OptionalLong.empty(), contact("sip:a@192.0.2.1", 60))));
        clock.advance(Duration.ofSeconds(50));
        await(service.register(register("c1", 2, OptionalLong.empty(), contact("sip:a@192.0.2.1", 60))));
        clock.advance(Duration.ofSeconds(50));
        assertEquals(List.of("sip:a@192.0.2.1"), lookup(service, AOR));
    }

    @Test
    void removingTheLastBindingDeletesTheKey() {
        await(service.register(register("c1", 1, OptionalLong.empty(), contact("sip:a@192.0.2.1", 600))));
        Accepted a = assertInstanceOf(Accepted.class,
                await(service.register(register("c1", 2, OptionalLong.empty(), contact("sip:a@192.0.2.1", 0)))));
        assertTrue(a.bindings().isEmpty());
        assertEquals(0, store.size());
    }

    @Test
    void wildcardRemovalDeletesTheKey() {
        await(service.register(register("c1", 1, OptionalLong.empty(), contact("sip:a@192.0.2.1", 600),
                contact("sip:b@192.0.2.2", 600))));
        assertInstanceOf(Accepted.class,
                await(service.register(register("c2", 1, OptionalLong.of(0), ContactSpec.wildcard()))));
        assertEquals(0, store.size());
        assertTrue(lookup(service, AOR).isEmpty());
    }

    @Test
    void twoFrontNodesOnOneStoreSeeEachOthersRegistrations() {
        LocalDht other = new LocalDht(store, new Peer("node-2", Optional.empty()), () -> { });
        LocationService second = new LocationService(other, POLICY, clock);
        await(service.register(register("c1", 1, OptionalLong.empty(), contact("sip:a@192.0.2.1", 600))));
        await(second.register(register("c2", 1, OptionalLong.empty(), contact("sip:b@192.0.2.2", 600))));
        assertEquals(2, lookup(service, AOR).size());
        assertEquals(2, lookup(second, AOR).size());
    }

    @Test
    void conditionalPutThatLosesARaceIsRetriedAndBothUpdatesSurvive() {
        AtomicInteger rivals = new AtomicInteger();
        LocationService rivalService = new LocationService(dht, POLICY, clock);
        ContendedDht contended = new ContendedDht(dht, 3, () -> {
            int n = rivals.incrementAndGet();
            await(rivalService.register(register("rival-" + n, 1, OptionalLong.empty(),
                    contact("sip:rival" + n + "@192.0.2.9", 600))));
        });
        LocationService racing = new LocationService(contended, POLICY, clock);

        Accepted a = assertInstanceOf(Accepted.class,
                await(racing.register(register("c1", 1, OptionalLong.empty(), contact("sip:mine@192.0.2.1", 600)))));

        assertEquals(4, contended.conditionalWrites.get(), "three lost races, then the write that commits");
        assertEquals(4, a.bindings().size(), "the committed set includes every rival's binding");
        List<String> found = lookup(service, AOR);
        assertEquals(4, found.size());
        assertTrue(found.containsAll(List.of("sip:mine@192.0.2.1", "sip:rival1@192.0.2.9", "sip:rival2@192.0.2.9",
                "sip:rival3@192.0.2.9")), found.toString());
    }

    @Test
    void conditionalRemoveThatLosesARaceIsRetriedOnTheFreshValue() {
        await(service.register(register("c1", 1, OptionalLong.empty(), contact("sip:mine@192.0.2.1", 600))));
        LocationService rivalService = new LocationService(dht, POLICY, clock);
        ContendedDht contended = new ContendedDht(dht, 1, () -> await(rivalService.register(
                register("rival", 1, OptionalLong.empty(), contact("sip:rival@192.0.2.9", 600)))));
        LocationService racing = new LocationService(contended, POLICY, clock);

        assertInstanceOf(Accepted.class,
                await(racing.register(register("c1", 2, OptionalLong.empty(), contact("sip:mine@192.0.2.1", 0)))));

        assertEquals(List.of("sip:rival@192.0.2.9"), lookup(service, AOR),
                "the retry removed only its own contact and kept what the rival wrote");
    }

    @Test
    void retryReappliesTheRulesToWhatTheRivalWrote() {
        // The rival refreshes the same binding under the same Call-ID with a higher CSeq,
        // so on retry our CSeq is out of order.
        LocationService rivalService = new LocationService(dht, POLICY, clock);
        ContendedDht contended = new ContendedDht(dht, 1, () -> await(rivalService.register(
                register("c1", 9, OptionalLong.empty(), contact("sip:mine@192.0.2.1", 600)))));
        LocationService racing = new LocationService(contended, POLICY, clock);

        Rejected r = assertInstanceOf(Rejected.class,
                await(racing.register(register("c1", 5, OptionalLong.empty(), contact("sip:mine@192.0.2.1", 600)))));
        assertEquals(500, r.statusCode());
        assertEquals(9, await(service.lookup(AOR)).get(0).cseq());
    }

    @Test
    void persistentContentionEndsWithA500InsteadOfLoopingForever() {
        AtomicInteger rivals = new AtomicInteger();
        ContendedDht contended = new ContendedDht(dht, Integer.MAX_VALUE, () -> {
            // bump the version under the racing writer's feet every time
            Optional<VersionedValue> now = await(dht.get(AOR.key()));
            byte[] value = now.map(VersionedValue::value)
                    .orElse(BindingCodec.encode(BindingSet.EMPTY));
            long version = now.map(VersionedValue::version).orElse(Dht.ABSENT);
            assertTrue(await(dht.putIfVersion(AOR.key(), version, value, START.plusSeconds(600 + rivals.incrementAndGet()))));
        });
        LocationService racing = new LocationService(contended, POLICY, clock);

        Rejected r = assertInstanceOf(Rejected.class,
                await(racing.register(register("c1", 1, OptionalLong.empty(), contact("sip:mine@192.0.2.1", 600)))));

        assertEquals(500, r.statusCode());
        assertEquals(LocationService.MAX_ATTEMPTS, contended.conditionalWrites.get());
        assertTrue(lookup(service, AOR).isEmpty(), "the contended update was never committed");
    }

    /**
     * Delegates to a real DHT, but before each of the first {@code conflicts}
     * conditional writes lets a rival write the same key, so the write that
     * follows fails on its stale version exactly as a lost race would.
     */
    private static final class ContendedDht implements Dht {
        private final Dht delegate;
        private final Runnable rival;
        private final AtomicInteger conflictsLeft;
        final AtomicInteger conditionalWrites = new AtomicInteger();

        ContendedDht(Dht delegate, int conflicts, Runnable rival) {
            this.delegate = delegate;
            this.rival = rival;
            this.conflictsLeft = new AtomicInteger(conflicts);
        }

        private void maybeInterfere() {
            conditionalWrites.incrementAndGet();
            if (conflictsLeft.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0) {
                rival.run();
            }
        }

        @Override
        public String backendName() {
            return "contended-" + delegate.backendName();
        }

        @Override
        public Peer self() {
            return delegate.self();
        }

        @Override
        public CompletableFuture<Optional<VersionedValue>> get(String key) {
            return delegate.get(key);
        }

        @Override
        public CompletableFuture<Boolean> putIfVersion(String key, long expectedVersion, byte[] value,
                                                       Instant expiresAt) {
            maybeInterfere();
            return delegate.putIfVersion(key, expectedVersion, value, expiresAt);
        }

        @Override
        public CompletableFuture<Boolean> removeIfVersion(String key, long expectedVersion) {
            maybeInterfere();
            return delegate.removeIfVersion(key, expectedVersion);
        }

        @Override
        public CompletableFuture<Placement> placement(String key) {
            return delegate.placement(key);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
