package org.p2psip.core.location;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;

class BindingSetTest {

    private static final Instant NOW = Instant.parse("2024-05-01T12:00:00Z");
    private static final HostPort SOURCE = new HostPort("192.0.2.1", 5060);

    private static Binding binding(String user, int q, Instant expiresAt) {
        return new Binding("sip:" + user + "@192.0.2.1", Map.of(), expiresAt, q, "call", 1, Optional.empty(),
                OptionalInt.empty(), List.of(), SOURCE, "UDP");
    }

    private static Binding binding(String user, int q) {
        return binding(user, q, NOW.plusSeconds(600));
    }

    private static List<String> users(List<Binding> bindings) {
        return bindings.stream().map(b -> SipUri.parse(b.contact()).user()).toList();
    }

    @Test
    void targetsAreOrderedByDescendingQ() {
        BindingSet s = new BindingSet(List.of(binding("low", 100), binding("high", 900), binding("mid", 500)));
        assertEquals(List.of("high", "mid", "low"), users(s.targetsAt(NOW)));
    }

    @Test
    void unspecifiedQRanksAsOne() {
        BindingSet s = new BindingSet(List.of(binding("half", 500), binding("none", Binding.Q_UNSPECIFIED),
                binding("zero", 0)));
        assertEquals(List.of("none", "half", "zero"), users(s.targetsAt(NOW)));
    }

    @Test
    void explicitQOfOneTiesWithUnspecifiedAndNewestWriteWins() {
        BindingSet s = new BindingSet(List.of(binding("one", 1000), binding("none", Binding.Q_UNSPECIFIED)));
        assertEquals(List.of("none", "one"), users(s.targetsAt(NOW)));
    }

    @Test
    void withinEqualQTheMostRecentlyWrittenComesFirst() {
        BindingSet s = new BindingSet(List.of(binding("oldest", 500), binding("top", 800), binding("middle", 500),
                binding("newest", 500)));
        assertEquals(List.of("top", "newest", "middle", "oldest"), users(s.targetsAt(NOW)));
    }

    @Test
    void expiredBindingsAreNotTargets() {
        BindingSet s = new BindingSet(List.of(binding("gone", 1000, NOW), binding("live", 100)));
        assertEquals(List.of("live"), users(s.targetsAt(NOW)));
        assertTrue(new BindingSet(List.of(binding("gone", 1000, NOW.minusSeconds(1)))).targetsAt(NOW).isEmpty());
    }

    @Test
    void refreshThroughTheRulesPutsTheRefreshedContactFirstAmongEqualQ() {
        RegistrarPolicy policy = RegistrarPolicy.DEFAULT;
        AddressOfRecord aor = AddressOfRecord.parse("sip:bob@biloxi.com");
        BindingSet s = BindingSet.EMPTY;
        for (String user : List.of("a", "b", "c")) {
            RegisterRequest r = new RegisterRequest(aor, List.of(ContactSpec.of("sip:" + user + "@192.0.2.1")),
                    OptionalLong.empty(), "call-" + user, 1, List.of(), SOURCE, "UDP");
            s = ((RegisterOutcome.Accepted) RegistrarRules.apply(r, s, policy, NOW)).bindings();
        }
        assertEquals(List.of("c", "b", "a"), users(s.targetsAt(NOW)));
        RegisterRequest refreshA = new RegisterRequest(aor, List.of(ContactSpec.of("sip:a@192.0.2.1")),
                OptionalLong.empty(), "call-a", 2, List.of(), SOURCE, "UDP");
        s = ((RegisterOutcome.Accepted) RegistrarRules.apply(refreshA, s, policy, NOW.plusSeconds(5))).bindings();
        assertEquals(List.of("a", "c", "b"), users(s.targetsAt(NOW.plusSeconds(5))));
    }

    @Test
    void activeAtDropsOnlyLapsedBindings() {
        BindingSet s = new BindingSet(List.of(binding("a", 1, NOW.minusMillis(1)), binding("b", 1, NOW.plusMillis(1)),
                binding("c", 1, NOW)));
        assertEquals(List.of("b"), users(s.activeAt(NOW).bindings()));
    }

    @Test
    void activeAtReturnsTheSameSetWhenNothingLapsed() {
        BindingSet s = new BindingSet(List.of(binding("a", 1)));
        assertSame(s, s.activeAt(NOW));
    }

    @Test
    void latestExpiryIsTheLastBindingToLapse() {
        BindingSet s = new BindingSet(List.of(binding("a", 1, NOW.plusSeconds(5)), binding("b", 1, NOW.plusSeconds(50)),
                binding("c", 1, NOW.plusSeconds(20))));
        assertEquals(Optional.of(NOW.plusSeconds(50)), s.latestExpiry());
        assertEquals(Optional.empty(), BindingSet.EMPTY.latestExpiry());
    }

    @Test
    void setIsACopyOfTheListItWasGiven() {
        List<Binding> list = new ArrayList<>(List.of(binding("a", 1)));
        BindingSet s = new BindingSet(list);
        list.add(binding("b", 1));
        assertEquals(1, s.size());
        assertThrows(UnsupportedOperationException.class, () -> s.bindings().add(binding("c", 1)));
    }

    @Test
    void bindingReportsSecondsLeftRoundedUpAndExpiry() {
        Binding b = binding("a", 1, NOW.plusMillis(1500));
        assertEquals(2, b.secondsLeft(NOW));
        assertEquals(1, b.secondsLeft(NOW.plusMillis(500)));
        assertEquals(0, b.secondsLeft(NOW.plusMillis(1500)));
        assertEquals(0, b.secondsLeft(NOW.plusSeconds(100)));
        assertFalse(b.expiredAt(NOW.plusMillis(1499)));
        assertTrue(b.expiredAt(NOW.plusMillis(1500)));
    }

    @Test
    void bindingRefusesOutOfRangeValues() {
        assertThrows(IllegalArgumentException.class, () -> binding("a", 1001));
        assertThrows(IllegalArgumentException.class, () -> binding("a", -2));
        assertThrows(IllegalArgumentException.class, () -> new Binding("sip:a@x", Map.of(), NOW, 1, "c", -1,
                Optional.empty(), OptionalInt.empty(), List.of(), SOURCE, "UDP"));
        assertThrows(IllegalArgumentException.class, () -> new Binding("sip:a@x", Map.of(), NOW, 1, "c", 1,
                Optional.empty(), OptionalInt.of(0), List.of(), SOURCE, "UDP"));
    }

    @Test
    void effectiveQTreatsUnspecifiedAsOne() {
        assertEquals(1000, binding("a", Binding.Q_UNSPECIFIED).effectiveQ());
        assertEquals(0, binding("a", 0).effectiveQ());
    }

    @Test
    void contactSpecReadsInstanceAndRegId() {
        ContactSpec c = new ContactSpec("sip:a@x", OptionalLong.empty(), Binding.Q_UNSPECIFIED,
                Map.of("+SIP.Instance", "\"<urn:uuid:1>\"", "Reg-Id", "2"));
        assertEquals(Optional.of("<urn:uuid:1>"), c.instanceId());
        assertEquals(OptionalInt.of(2), c.regId());
        assertFalse(c.isWildcard());
        assertTrue(ContactSpec.wildcard().isWildcard());
    }

    @Test
    void contactSpecIgnoresUnusableRegIdAndEmptyInstance() {
        for (String bad : List.of("0", "-1", "x", "", "99999999999")) {
            ContactSpec c = new ContactSpec("sip:a@x", OptionalLong.empty(), Binding.Q_UNSPECIFIED,
                    Map.of("reg-id", bad, "+sip.instance", ""));
            assertTrue(c.regId().isEmpty(), bad);
            assertTrue(c.instanceId().isEmpty());
        }
    }

    @Test
    void contactSpecRefusesBadQAndNegativeExpires() {
        assertThrows(IllegalArgumentException.class,
                () -> new ContactSpec("sip:a@x", OptionalLong.empty(), 1001, Map.of()));
        assertThrows(IllegalArgumentException.class,
                () -> new ContactSpec("sip:a@x", OptionalLong.of(-5), 1000, Map.of()));
    }
}
