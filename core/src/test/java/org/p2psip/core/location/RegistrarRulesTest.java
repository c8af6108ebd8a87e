package org.p2psip.core.location;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.p2psip.core.location.RegisterOutcome.Accepted;
import org.p2psip.core.location.RegisterOutcome.Rejected;
import org.p2psip.core.net.HostPort;

/** RFC 3261 §10.3 steps 6 to 8 (and RFC 5626 §6) as pure functions of a fixed instant. */
class RegistrarRulesTest {

    static final Instant NOW = Instant.parse("2024-05-01T12:00:00Z");
    /** min 60 s, default 3600 s, max 7200 s, at most 4 contacts. */
    static final RegistrarPolicy POLICY = new RegistrarPolicy(60, 3600, 7200, 4);
    static final AddressOfRecord AOR = AddressOfRecord.parse("sip:alice@atlanta.com");
    static final HostPort SOURCE = new HostPort("192.0.2.10", 5062);
    static final String CALL = "a84b4c76e66710@pc33.atlanta.com";
    static final String OTHER_CALL = "843817637684230@998sdasdh09";

    static final String UA1 = "sip:alice@192.0.2.10:5062";
    static final String UA2 = "sip:alice@198.51.100.7:5060;transport=tcp";
    static final String UA3 = "sips:alice@[2001:db8::7]:5061";
    static final String UA4 = "sip:alice@pc33.atlanta.com";
    static final String UA5 = "sip:alice@203.0.113.9";

    // ---- builders ----------------------------------------------------------

    static ContactSpec contact(String uri) {
        return ContactSpec.of(uri);
    }

    static ContactSpec contact(String uri, long expires) {
        return new ContactSpec(uri, OptionalLong.of(expires), Binding.Q_UNSPECIFIED, Map.of());
    }

    static ContactSpec contact(String uri, Map<String, String> params) {
        return new ContactSpec(uri, OptionalLong.empty(), Binding.Q_UNSPECIFIED, params);
    }

    static RegisterRequest request(String callId, long cseq, OptionalLong expires, ContactSpec... contacts) {
        return new RegisterRequest(AOR, Arrays.asList(contacts), expires, callId, cseq,
                List.of("<sip:edge.atlanta.com;lr>"), SOURCE, "UDP");
    }

    static RegisterRequest request(String callId, long cseq, ContactSpec... contacts) {
        return request(callId, cseq, OptionalLong.empty(), contacts);
    }

    static Binding stored(String uri, String callId, long cseq, Instant expiresAt) {
        return new Binding(uri, Map.of(), expiresAt, Binding.Q_UNSPECIFIED, callId, cseq, Optional.empty(),
                OptionalInt.empty(), List.of(), new HostPort("192.0.2.99", 5060), "TCP");
    }

    static Binding stored(String uri, String callId, long cseq) {
        return stored(uri, callId, cseq, NOW.plusSeconds(1800));
    }

    static Binding storedInstance(String uri, String instance, int regId, String callId, long cseq) {
        return new Binding(uri, Map.of("+sip.instance", "\"" + instance + "\"", "reg-id", Integer.toString(regId)),
                NOW.plusSeconds(1800), Binding.Q_UNSPECIFIED, callId, cseq, Optional.of(instance),
                OptionalInt.of(regId), List.of(), SOURCE, "TCP");
    }

    static BindingSet set(Binding... bindings) {
        return new BindingSet(List.of(bindings));
    }

    static RegisterOutcome apply(RegisterRequest r, BindingSet s) {
        return RegistrarRules.apply(r, s, POLICY, NOW);
    }

    static Accepted accepted(RegisterOutcome o) {
        return assertInstanceOf(Accepted.class, o, () -> "expected acceptance but got " + o);
    }

    static Rejected rejected(RegisterOutcome o, int status) {
        Rejected r = assertInstanceOf(Rejected.class, o, () -> "expected a " + status + " but got " + o);
        assertEquals(status, r.statusCode(), () -> "reason: " + r.reason());
        assertFalse(r.reason().isBlank());
        return r;
    }

    static List<String> contacts(BindingSet s) {
        return s.bindings().stream().map(Binding::contact).toList();
    }

    static Binding only(BindingSet s) {
        assertEquals(1, s.size(), () -> "bindings: " + contacts(s));
        return s.bindings().get(0);
    }

    // ---- tests ---------------------------------------------------------------

    @Nested
    class Adding {

        @Test
        void newContactIsBoundWithEverythingTheRegistrarMustRemember() {
            ContactSpec c = new ContactSpec(UA1, OptionalLong.of(600), 700, Map.of("Expires-Like", "x", "video", ""));
            Accepted a = accepted(apply(request(CALL, 1, c), BindingSet.EMPTY));
            assertTrue(a.changed());
            Binding b = only(a.bindings());
            assertEquals(UA1, b.contact());
            assertEquals(NOW.plusSeconds(600), b.expiresAt());
            assertEquals(700, b.q());
            assertEquals(Map.of("expires-like", "x", "video", ""), b.params());
            assertEquals(CALL, b.callId());
            assertEquals(1, b.cseq());
            assertEquals(List.of("<sip:edge.atlanta.com;lr>"), b.path());
            assertEquals(SOURCE, b.source());
            assertEquals("UDP", b.transport());
            assertTrue(b.instanceId().isEmpty());
            assertTrue(b.regId().isEmpty());
        }

        @Test
        void defaultExpiryAppliesWhenNeitherParamNorHeaderIsGiven() {
            Binding b = only(accepted(apply(request(CALL, 1, contact(UA1)), BindingSet.EMPTY)).bindings());
            assertEquals(NOW.plusSeconds(POLICY.defaultExpires()), b.expiresAt());
        }

        @Test
        void expiresHeaderAppliesToContactsWithoutTheirOwnParam() {
            Accepted a = accepted(apply(request(CALL, 1, OptionalLong.of(120), contact(UA1), contact(UA2, 900)),
                    BindingSet.EMPTY));
            assertEquals(List.of(NOW.plusSeconds(120), NOW.plusSeconds(900)),
                    a.bindings().bindings().stream().map(Binding::expiresAt).toList());
        }

        @Test
        void expiresParamOverridesExpiresHeader() {
            Binding b = only(accepted(apply(request(CALL, 1, OptionalLong.of(300), contact(UA1, 120)),
                    BindingSet.EMPTY)).bindings());
            assertEquals(NOW.plusSeconds(120), b.expiresAt());
        }

        @Test
        void nonZeroExpiresParamOverridesZeroExpiresHeader() {
            Binding b = only(accepted(apply(request(CALL, 1, OptionalLong.of(0), contact(UA1, 300)),
                    BindingSet.EMPTY)).bindings());
            assertEquals(NOW.plusSeconds(300), b.expiresAt());
        }

        @Test
        void requestedExpiryAboveMaximumIsCutToTheMaximum() {
            Binding b = only(accepted(apply(request(CALL, 1, contact(UA1, 100_000)), BindingSet.EMPTY)).bindings());
            assertEquals(NOW.plusSeconds(7200), b.expiresAt());
        }

        @Test
        void expiresHeaderAboveMaximumIsCutToo() {
            Binding b = only(accepted(apply(request(CALL, 1, OptionalLong.of(RegistrarPolicy.MAX_DELTA_SECONDS),
                    contact(UA1)), BindingSet.EMPTY)).bindings());
            assertEquals(NOW.plusSeconds(7200), b.expiresAt());
        }

        @Test
        void requestedExpiryExactlyAtMaximumIsKept() {
            Binding b = only(accepted(apply(request(CALL, 1, contact(UA1, 7200)), BindingSet.EMPTY)).bindings());
            assertEquals(NOW.plusSeconds(7200), b.expiresAt());
        }

        @Test
        void expiryExactlyAtMinimumIsAccepted() {
            Binding b = only(accepted(apply(request(CALL, 1, contact(UA1, 60)), BindingSet.EMPTY)).bindings());
            assertEquals(NOW.plusSeconds(60), b.expiresAt());
        }

        @Test
        void newContactsAreAppendedAfterExistingOnes() {
            Accepted a = accepted(apply(request(CALL, 5, contact(UA3), contact(UA2)),
                    set(stored(UA1, OTHER_CALL, 1))));
            assertEquals(List.of(UA1, UA3, UA2), contacts(a.bindings()));
        }

        @Test
        void contactWhoseUriDiffersOnlyBySignificantParamIsASeparateBinding() {
            Accepted a = accepted(apply(request(CALL, 2, contact(UA1 + ";transport=tcp")),
                    set(stored(UA1, CALL, 1))));
            assertEquals(List.of(UA1, UA1 + ";transport=tcp"), contacts(a.bindings()));
        }

        @Test
        void contactWithExplicitDefaultPortIsASeparateBinding() {
            Accepted a = accepted(apply(request(CALL, 2, contact("sip:alice@pc33.atlanta.com:5060")),
                    set(stored(UA4, CALL, 1))));
            assertEquals(2, a.bindings().size());
        }
    }

    @Nested
    class IntervalTooBrief {

        @ParameterizedTest
        @ValueSource(longs = {1, 30, 59})
        void expiryBelowMinimumIsRejectedWith423CarryingMinExpires(long expires) {
            Rejected r = rejected(apply(request(CALL, 1, contact(UA1, expires)), BindingSet.EMPTY), 423);
            assertEquals(OptionalLong.of(60), r.minExpires());
        }

        @Test
        void expiresHeaderBelowMinimumIsRejectedWith423() {
            Rejected r = rejected(apply(request(CALL, 1, OptionalLong.of(10), contact(UA1)), BindingSet.EMPTY), 423);
            assertEquals(OptionalLong.of(60), r.minExpires());
        }

        @Test
        void refreshBelowMinimumIsRejectedWith423AndKeepsTheOldBinding() {
            BindingSet before = set(stored(UA1, CALL, 1));
            rejected(apply(request(CALL, 2, contact(UA1, 5)), before), 423);
        }

        @Test
        void zeroIsARemovalNotATooBriefInterval() {
            accepted(apply(request(CALL, 2, contact(UA1, 0)), set(stored(UA1, CALL, 1))));
        }

        @Test
        void onlyIntervalsShorterThanAnHourMayBeRefusedEvenWhenTheMinimumIsLonger() {
            // §10.3 step 7: 423 "if and only if ... greater than zero AND smaller than one hour AND
            // less than a registrar-configured minimum".
            RegistrarPolicy longMinimum = new RegistrarPolicy(7200, 7200, 86_400, 4);
            Accepted a = accepted(RegistrarRules.apply(request(CALL, 1, contact(UA1, 3600)), BindingSet.EMPTY,
                    longMinimum, NOW));
            assertEquals(NOW.plusSeconds(3600), only(a.bindings()).expiresAt());
            Rejected r = rejected(RegistrarRules.apply(request(CALL, 1, contact(UA1, 3599)), BindingSet.EMPTY,
                    longMinimum, NOW), 423);
            assertEquals(OptionalLong.of(7200), r.minExpires());
        }
    }

    @Nested
    class Refreshing {

        @Test
        void sameCallIdHigherCSeqRefreshesTheBinding() {
            BindingSet before = set(stored(UA1, CALL, 1, NOW.plusSeconds(10)));
            Accepted a = accepted(apply(request(CALL, 2, contact(UA1, 600)), before));
            assertTrue(a.changed());
            Binding b = only(a.bindings());
            assertEquals(NOW.plusSeconds(600), b.expiresAt());
            assertEquals(2, b.cseq());
            assertEquals(SOURCE, b.source(), "a refresh records where the REGISTER now comes from");
            assertEquals("UDP", b.transport());
        }

        @Test
        void sameCallIdLowerCSeqIsRejectedWith500() {
            rejected(apply(request(CALL, 4, contact(UA1, 600)), set(stored(UA1, CALL, 5))), 500);
        }

        @Test
        void sameCallIdEqualCSeqIsARetransmissionAnsweredWithTheBindingItWrote() {
            BindingSet before = set(stored(UA1, CALL, 5, NOW.plusSeconds(10)));
            Accepted a = accepted(apply(request(CALL, 5, contact(UA1, 600)), before));
            assertFalse(a.changed(), "a retransmission writes nothing");
            assertEquals(before.bindings(), a.bindings().bindings());
        }

        @Test
        void sameCallIdEqualCSeqRemovalOfAStillStoredBindingIsRejectedWith500() {
            // Its original would have removed the binding: this is another request numbered the same.
            rejected(apply(request(CALL, 5, contact(UA1, 0)), set(stored(UA1, CALL, 5))), 500);
        }

        @Test
        void sameCallIdLowerCSeqRemovalIsRejectedWith500() {
            rejected(apply(request(CALL, 4, contact(UA1, 0)), set(stored(UA1, CALL, 5))), 500);
        }

        @Test
        void differentCallIdReplacesTheBindingWhateverItsCSeq() {
            Accepted a = accepted(apply(request(OTHER_CALL, 1, contact(UA1, 600)),
                    set(stored(UA1, CALL, 4_000_000_000L))));
            Binding b = only(a.bindings());
            assertEquals(OTHER_CALL, b.callId());
            assertEquals(1, b.cseq());
            assertEquals(NOW.plusSeconds(600), b.expiresAt());
        }

        @Test
        void differentCallIdRemovesTheBindingWhateverItsCSeq() {
            Accepted a = accepted(apply(request(OTHER_CALL, 1, contact(UA1, 0)), set(stored(UA1, CALL, 99))));
            assertTrue(a.bindings().isEmpty());
            assertTrue(a.changed());
        }

        @Test
        void lowerCSeqIsJudgedPerBindingNotPerRequest() {
            // The CSeq rule binds only bindings the same Call-ID wrote.
            BindingSet before = set(stored(UA1, OTHER_CALL, 90), stored(UA2, CALL, 3));
            Accepted a = accepted(apply(request(CALL, 4, contact(UA1, 600), contact(UA2, 600)), before));
            assertEquals(List.of(CALL, CALL), a.bindings().bindings().stream().map(Binding::callId).toList());
            assertEquals(List.of(4L, 4L), a.bindings().bindings().stream().map(Binding::cseq).toList());
        }

        @Test
        void equivalentUriFindsTheBindingEvenWrittenDifferently() {
            BindingSet before = set(stored("sip:alice@PC33.Atlanta.com;transport=UDP", CALL, 1));
            Accepted a = accepted(apply(request(CALL, 2,
                    contact("sip:%61lice@pc33.atlanta.com;transport=udp;ob", 600)), before));
            Binding b = only(a.bindings());
            assertEquals("sip:%61lice@pc33.atlanta.com;transport=udp;ob", b.contact(),
                    "the binding holds the contact as last written");
            assertEquals(NOW.plusSeconds(600), b.expiresAt());
        }

        @Test
        void refreshKeepsOtherBindingsUntouched() {
            Binding other = stored(UA2, OTHER_CALL, 7);
            Accepted a = accepted(apply(request(CALL, 2, contact(UA1, 600)), set(stored(UA1, CALL, 1), other)));
            assertEquals(2, a.bindings().size());
            assertTrue(a.bindings().bindings().contains(other));
        }

        @Test
        void refreshMovesTheBindingToMostRecentlyWritten() {
            Accepted a = accepted(apply(request(CALL, 2, contact(UA1, 600)),
                    set(stored(UA1, CALL, 1), stored(UA2, OTHER_CALL, 1))));
            assertEquals(List.of(UA2, UA1), contacts(a.bindings()));
            assertEquals(UA1, a.bindings().targetsAt(NOW).get(0).contact());
        }

        @Test
        void refreshReplacesQAndParams() {
            Binding old = new Binding(UA1, Map.of("video", ""), NOW.plusSeconds(100), 300, CALL, 1,
                    Optional.empty(), OptionalInt.empty(), List.of(), SOURCE, "UDP");
            ContactSpec c = new ContactSpec(UA1, OptionalLong.of(600), 900, Map.of("audio", ""));
            Binding b = only(accepted(apply(request(CALL, 2, c), set(old))).bindings());
            assertEquals(900, b.q());
            assertEquals(Map.of("audio", ""), b.params());
        }
    }

    @Nested
    class Removing {

        @Test
        void expiresParamZeroRemovesTheBinding() {
            Accepted a = accepted(apply(request(CALL, 2, contact(UA1, 0)),
                    set(stored(UA1, CALL, 1), stored(UA2, CALL, 1))));
            assertEquals(List.of(UA2), contacts(a.bindings()));
            assertTrue(a.changed());
        }

        @Test
        void expiresHeaderZeroRemovesTheBinding() {
            Accepted a = accepted(apply(request(CALL, 2, OptionalLong.of(0), contact(UA1)),
                    set(stored(UA1, CALL, 1))));
            assertTrue(a.bindings().isEmpty());
            assertTrue(a.changed());
        }

        @Test
        void zeroExpiresParamOverridesNonZeroHeader() {
            Accepted a = accepted(apply(request(CALL, 2, OptionalLong.of(3600), contact(UA1, 0), contact(UA2)),
                    set(stored(UA1, CALL, 1))));
            assertEquals(List.of(UA2), contacts(a.bindings()));
        }

        @Test
        void removingAContactThatIsNotBoundIsAnAcceptedNoOp() {
            BindingSet before = set(stored(UA1, CALL, 1));
            Accepted a = accepted(apply(request(CALL, 2, contact(UA2, 0)), before));
            assertFalse(a.changed());
            assertEquals(before, a.bindings());
        }

        @Test
        void removingFromAnEmptySetIsAnAcceptedNoOp() {
            Accepted a = accepted(apply(request(CALL, 1, contact(UA1, 0)), BindingSet.EMPTY));
            assertFalse(a.changed());
            assertTrue(a.bindings().isEmpty());
        }

        @Test
        void removalUsesUriEquivalence() {
            Accepted a = accepted(apply(request(CALL, 2, contact("sip:alice@192.0.2.10:5062;lr", 0)),
                    set(stored(UA1, CALL, 1))));
            assertTrue(a.bindings().isEmpty());
        }

        @Test
        void removalOfAnEquivalentLookingButDifferentUriLeavesTheBinding() {
            Accepted a = accepted(apply(request(CALL, 2, contact("sip:ALICE@192.0.2.10:5062", 0)),
                    set(stored(UA1, CALL, 1))));
            assertEquals(List.of(UA1), contacts(a.bindings()));
            assertFalse(a.changed());
        }
    }

    @Nested
    class Wildcard {

        private final BindingSet two = set(stored(UA1, CALL, 1), stored(UA2, OTHER_CALL, 50));

        @Test
        void wildcardWithExpiresZeroRemovesEveryBinding() {
            Accepted a = accepted(apply(request("fresh-call", 1, OptionalLong.of(0), ContactSpec.wildcard()), two));
            assertTrue(a.bindings().isEmpty());
            assertTrue(a.changed());
        }

        @Test
        void wildcardWithSameCallIdAndHigherCSeqRemovesEveryBinding() {
            Accepted a = accepted(apply(request(CALL, 2, OptionalLong.of(0), ContactSpec.wildcard()), two));
            assertTrue(a.bindings().isEmpty());
        }

        @Test
        void wildcardWithSameCallIdAndLowerCSeqIsRejectedWith500() {
            BindingSet before = set(stored(UA1, CALL, 10), stored(UA2, OTHER_CALL, 1));
            rejected(apply(request(CALL, 9, OptionalLong.of(0), ContactSpec.wildcard()), before), 500);
        }

        @Test
        void wildcardWithSameCallIdAndEqualCSeqIsRejectedWith500() {
            rejected(apply(request(CALL, 1, OptionalLong.of(0), ContactSpec.wildcard()), two), 500);
        }

        @Test
        void wildcardOnAnEmptySetIsAcceptedWithoutChange() {
            Accepted a = accepted(apply(request(CALL, 1, OptionalLong.of(0), ContactSpec.wildcard()),
                    BindingSet.EMPTY));
            assertFalse(a.changed());
            assertTrue(a.bindings().isEmpty());
        }

        @Test
        void wildcardOverOnlyExpiredBindingsReportsAChange() {
            BindingSet before = set(stored(UA1, CALL, 10, NOW.minusSeconds(1)));
            Accepted a = accepted(apply(request(CALL, 1, OptionalLong.of(0), ContactSpec.wildcard()), before));
            assertTrue(a.changed());
            assertTrue(a.bindings().isEmpty());
        }

        @Test
        void wildcardIgnoresTheCSeqOfExpiredBindings() {
            BindingSet before = set(stored(UA1, CALL, 10, NOW), stored(UA2, OTHER_CALL, 1));
            accepted(apply(request(CALL, 3, OptionalLong.of(0), ContactSpec.wildcard()), before));
        }

        @Test
        void wildcardWithAnotherContactIsRejectedWith400() {
            rejected(apply(request(CALL, 2, OptionalLong.of(0), ContactSpec.wildcard(), contact(UA1)), two), 400);
            rejected(apply(request(CALL, 2, OptionalLong.of(0), contact(UA1), ContactSpec.wildcard()), two), 400);
        }

        @Test
        void wildcardRepeatedIsRejectedWith400() {
            rejected(apply(request(CALL, 2, OptionalLong.of(0), ContactSpec.wildcard(), ContactSpec.wildcard()),
                    two), 400);
        }

        @Test
        void wildcardWithoutExpiresHeaderIsRejectedWith400() {
            rejected(apply(request(CALL, 2, ContactSpec.wildcard()), two), 400);
        }

        @ParameterizedTest
        @ValueSource(longs = {1, 60, 3600})
        void wildcardWithNonZeroExpiresIsRejectedWith400(long expires) {
            rejected(apply(request(CALL, 2, OptionalLong.of(expires), ContactSpec.wildcard()), two), 400);
        }

        @Test
        void wildcardShapeErrorsWinOverTheCSeqCheck() {
            rejected(apply(request(CALL, 1, OptionalLong.of(3600), ContactSpec.wildcard()), two), 400);
        }
    }

    @Nested
    class AllOrNothing {

        private final Binding existing = stored(UA1, CALL, 3);
        private final BindingSet before = set(existing);
        private final BindingSet snapshot = new BindingSet(new ArrayList<>(before.bindings()));

        @Test
        void secondContactTooBriefRejectsTheWholeRequest() {
            RegisterOutcome o = apply(request(CALL, 4, contact(UA2, 600), contact(UA3, 5)), before);
            rejected(o, 423);
            assertEquals(snapshot, before);
        }

        @Test
        void secondContactOutOfOrderRejectsTheWholeRequest() {
            // UA2 would be added; UA1 was written by this Call-ID with a higher CSeq.
            BindingSet s = set(stored(UA1, CALL, 9));
            rejected(apply(request(CALL, 4, contact(UA2, 600), contact(UA1, 600)), s), 500);
            assertEquals(List.of(UA1), contacts(s));
            assertEquals(9, s.bindings().get(0).cseq());
        }

        @Test
        void badSecondContactUriRejectsTheWholeRequestWith400() {
            Rejected r = rejected(apply(request(CALL, 4, contact(UA2, 600), contact("sip:alice@", 600)), before), 400);
            assertTrue(r.reason().contains("Contact"), r.reason());
            assertEquals(snapshot, before);
        }

        @Test
        void removalBeforeAFailingContactIsNotApplied() {
            rejected(apply(request(CALL, 4, contact(UA1, 0), contact(UA2, 1)), before), 423);
            assertEquals(snapshot, before);
            assertEquals(List.of(UA1), contacts(before));
        }
    }

    @Nested
    class ContactUriValidation {

        @ParameterizedTest
        @ValueSource(strings = {"tel:+15551234567", "mailto:alice@atlanta.com", "http://atlanta.com/alice",
                "sip:alice@", "sip:alice@atlanta.com:99999", "sip:alice@[::1", "sip:al ice@atlanta.com",
                "sip:a%zz@atlanta.com", "<sip:alice@atlanta.com>", ""})
        void contactThatIsNotAValidSipOrSipsUriIsRejectedWith400(String uri) {
            Rejected r = rejected(apply(request(CALL, 1, contact(uri, 600)), BindingSet.EMPTY), 400);
            assertTrue(r.reason().startsWith("Bad Contact"), r.reason());
        }

        @Test
        void sipsContactIsAccepted() {
            accepted(apply(request(CALL, 1, contact(UA3, 600)), BindingSet.EMPTY));
        }

        @Test
        void badContactIsRejectedEvenWhenItOnlyAsksForRemoval() {
            rejected(apply(request(CALL, 1, contact("tel:+1555", 0)), BindingSet.EMPTY), 400);
        }
    }

    @Nested
    class MaxContacts {

        private final BindingSet full = set(stored(UA1, CALL, 1), stored(UA2, CALL, 1), stored(UA3, CALL, 1),
                stored(UA4, CALL, 1));

        @Test
        void bindingBeyondTheLimitIsRejectedWith503AndNothingIsWritten() {
            RegisterOutcome o = apply(request(CALL, 2, contact(UA5, 600)), full);
            rejected(o, 503);
            assertEquals(4, full.size());
        }

        @Test
        void singleRequestWithTooManyNewContactsIsRejectedWith503() {
            rejected(apply(request(CALL, 1, contact(UA1), contact(UA2), contact(UA3), contact(UA4), contact(UA5)),
                    BindingSet.EMPTY), 503);
        }

        @Test
        void exactlyTheLimitIsAccepted() {
            Accepted a = accepted(apply(request(CALL, 1, contact(UA1), contact(UA2), contact(UA3), contact(UA4)),
                    BindingSet.EMPTY));
            assertEquals(4, a.bindings().size());
        }

        @Test
        void refreshingEveryContactAtTheLimitIsAccepted() {
            Accepted a = accepted(apply(request(CALL, 2, contact(UA1), contact(UA2), contact(UA3), contact(UA4)),
                    full));
            assertEquals(4, a.bindings().size());
            assertTrue(a.bindings().bindings().stream().allMatch(b -> b.cseq() == 2));
        }

        @Test
        void removingOneAndAddingAnotherAtTheLimitIsAccepted() {
            Accepted a = accepted(apply(request(CALL, 2, contact(UA5, 600), contact(UA1, 0)), full));
            assertEquals(List.of(UA2, UA3, UA4, UA5), contacts(a.bindings()));
        }

        @Test
        void expiredBindingsDoNotCountAgainstTheLimit() {
            BindingSet withExpired = set(stored(UA1, CALL, 1), stored(UA2, CALL, 1), stored(UA3, CALL, 1),
                    stored(UA4, CALL, 1, NOW.minusSeconds(5)));
            Accepted a = accepted(apply(request(CALL, 2, contact(UA5, 600)), withExpired));
            assertEquals(List.of(UA1, UA2, UA3, UA5), contacts(a.bindings()));
        }
    }

    @Nested
    class Expiry {

        @Test
        void expiredBindingsAreLeftOutOfTheAcceptedSet() {
            BindingSet before = set(stored(UA1, OTHER_CALL, 1, NOW.minusSeconds(30)), stored(UA2, OTHER_CALL, 1));
            Accepted a = accepted(apply(request(CALL, 1, contact(UA3, 600)), before));
            assertEquals(List.of(UA2, UA3), contacts(a.bindings()));
        }

        @Test
        void bindingExpiringExactlyNowCountsAsExpired() {
            Accepted a = accepted(apply(request(CALL, 1), set(stored(UA1, CALL, 1, NOW))));
            assertTrue(a.bindings().isEmpty());
        }

        @Test
        void bindingExpiringOneMilliLaterIsStillLive() {
            Accepted a = accepted(apply(request(CALL, 1), set(stored(UA1, CALL, 1, NOW.plusMillis(1)))));
            assertEquals(1, a.bindings().size());
            assertFalse(a.changed());
        }

        @Test
        void updateThatOnlyDropsExpiredBindingsReportsAChange() {
            BindingSet before = set(stored(UA1, CALL, 1), stored(UA2, CALL, 1, NOW.minusSeconds(1)));
            Accepted a = accepted(apply(request(CALL, 2, contact(UA3, 0)), before));
            assertTrue(a.changed());
            assertEquals(List.of(UA1), contacts(a.bindings()));
        }

        @Test
        void expiredBindingNoLongerGuardsItsCSeq() {
            BindingSet before = set(stored(UA1, CALL, 10, NOW.minusSeconds(1)));
            Accepted a = accepted(apply(request(CALL, 5, contact(UA1, 600)), before));
            assertEquals(5, only(a.bindings()).cseq());
        }
    }

    @Nested
    class Fetching {

        @Test
        void requestWithoutContactsReturnsTheCurrentBindingsUnchanged() {
            BindingSet before = set(stored(UA1, CALL, 1), stored(UA2, OTHER_CALL, 8));
            Accepted a = accepted(apply(request(CALL, 1), before));
            assertFalse(a.changed());
            assertEquals(before, a.bindings());
        }

        @Test
        void fetchIgnoresCSeqOrderingAndExpiresHeader() {
            BindingSet before = set(stored(UA1, CALL, 50));
            Accepted a = accepted(apply(request(CALL, 1, OptionalLong.of(0)), before));
            assertEquals(before, a.bindings());
            assertFalse(a.changed());
        }

        @Test
        void fetchOfAnEmptySetIsAcceptedAndEmpty() {
            Accepted a = accepted(apply(request(CALL, 1), BindingSet.EMPTY));
            assertFalse(a.changed());
            assertTrue(a.bindings().isEmpty());
        }

        @Test
        void fetchDropsExpiredBindingsAndSaysSo() {
            Accepted a = accepted(apply(request(CALL, 1),
                    set(stored(UA1, CALL, 1, NOW.minusSeconds(1)), stored(UA2, CALL, 1))));
            assertTrue(a.changed());
            assertEquals(List.of(UA2), contacts(a.bindings()));
        }
    }

    @Nested
    class RepeatedContact {

        @Test
        void contactRepeatedInOneRequestEndsAsOneBindingWithTheLastExpiry() {
            Accepted a = accepted(apply(request(CALL, 1, contact(UA1, 600), contact(UA1, 1200)), BindingSet.EMPTY));
            assertEquals(NOW.plusSeconds(1200), only(a.bindings()).expiresAt());
        }

        @Test
        void equivalentSpellingsInOneRequestAreOneBinding() {
            Accepted a = accepted(apply(request(CALL, 1, contact(UA1, 600),
                    contact("sip:%61lice@192.0.2.10:5062;foo", 900)), BindingSet.EMPTY));
            assertEquals(NOW.plusSeconds(900), only(a.bindings()).expiresAt());
        }

        @Test
        void repeatedContactDoesNotTripTheCSeqCheckAgainstItsOwnWrite() {
            Accepted a = accepted(apply(request(CALL, 2, contact(UA1, 600), contact(UA1, 900)),
                    set(stored(UA1, CALL, 1))));
            Binding b = only(a.bindings());
            assertEquals(2, b.cseq());
            assertEquals(NOW.plusSeconds(900), b.expiresAt());
        }

        @Test
        void addedThenRemovedInOneRequestLeavesNoBinding() {
            Accepted a = accepted(apply(request(CALL, 1, contact(UA1, 600), contact(UA1, 0)), BindingSet.EMPTY));
            assertTrue(a.bindings().isEmpty());
        }

        @Test
        void removedThenAddedInOneRequestLeavesAFreshBinding() {
            Accepted a = accepted(apply(request(CALL, 2, contact(UA1, 0), contact(UA1, 300)),
                    set(stored(UA1, CALL, 1))));
            assertEquals(NOW.plusSeconds(300), only(a.bindings()).expiresAt());
        }
    }

    /** What the request did to each binding, for the registrations a node accounts. */
    @Nested
    class Changes {

        static BindingChange added(String uri, long expires) {
            return new BindingChange(uri, BindingChange.Kind.ADDED, expires);
        }

        static BindingChange refreshed(String uri, long expires) {
            return new BindingChange(uri, BindingChange.Kind.REFRESHED, expires);
        }

        static BindingChange removed(String uri) {
            return new BindingChange(uri, BindingChange.Kind.REMOVED, 0);
        }

        @Test
        void newRefreshedAndRemovedContactsAreNamedInRequestOrder() {
            Accepted a = accepted(apply(request(CALL, 2, contact(UA3, 600), contact(UA1, 900), contact(UA2, 0)),
                    set(stored(UA1, CALL, 1), stored(UA2, CALL, 1))));
            assertEquals(List.of(added(UA3, 600), refreshed(UA1, 900), removed(UA2)), a.changes());
        }

        @Test
        void grantedExpiryIsTheOneRecordedNotTheOneAsked() {
            Accepted a = accepted(apply(request(CALL, 1, contact(UA1, 99_999)), BindingSet.EMPTY));
            assertEquals(List.of(added(UA1, POLICY.maxExpires())), a.changes());
        }

        @Test
        void wildcardNamesEveryBindingItRemoved() {
            Accepted a = accepted(apply(request(OTHER_CALL, 1, OptionalLong.of(0), ContactSpec.wildcard()),
                    set(stored(UA1, CALL, 1), stored(UA2, CALL, 1))));
            assertEquals(List.of(removed(UA1), removed(UA2)), a.changes());
        }

        @Test
        void removingAContactThatIsNotBoundChangesNothing() {
            Accepted a = accepted(apply(request(CALL, 1, contact(UA1, 0)), BindingSet.EMPTY));
            assertEquals(List.of(), a.changes());
        }

        @Test
        void contactAddedTwiceInOneRequestIsOneAdditionWithTheLastExpiry() {
            Accepted a = accepted(apply(request(CALL, 1, contact(UA1, 600), contact(UA1, 1200)), BindingSet.EMPTY));
            assertEquals(List.of(added(UA1, 1200)), a.changes());
        }

        @Test
        void contactAddedThenRemovedInOneRequestIsNoChange() {
            Accepted a = accepted(apply(request(CALL, 1, contact(UA1, 600), contact(UA1, 0)), BindingSet.EMPTY));
            assertEquals(List.of(), a.changes());
        }

        @Test
        void storedContactRefreshedThenRemovedInOneRequestIsARemoval() {
            Accepted a = accepted(apply(request(CALL, 2, contact(UA1, 600), contact(UA1, 0)),
                    set(stored(UA1, CALL, 1))));
            assertEquals(List.of(removed(UA1)), a.changes());
        }

        @Test
        void retransmissionSeenByAnotherNodeChangesNothing() {
            Accepted a = accepted(apply(request(CALL, 1, contact(UA1, 600)),
                    set(stored(UA1, CALL, 1, NOW.plusSeconds(600)))));
            assertEquals(List.of(), a.changes());
        }

        @Test
        void fetchChangesNothing() {
            assertEquals(List.of(), accepted(apply(request(CALL, 2), set(stored(UA1, CALL, 1)))).changes());
        }

        @Test
        void changeRefusesAnExpiryThatContradictsIt() {
            assertThrows(IllegalArgumentException.class, () -> new BindingChange(UA1, BindingChange.Kind.REMOVED, 60));
            assertThrows(IllegalArgumentException.class, () -> new BindingChange(UA1, BindingChange.Kind.ADDED, 0));
        }
    }

    /** RFC 5626 §6: a binding keyed by instance-id and reg-id. */
    @Nested
    class OutboundInstances {

        static final String INSTANCE = "<urn:uuid:00000000-0000-1000-8000-000A95A0E128>";

        ContactSpec outbound(String uri, String instance, int regId, long expires) {
            return new ContactSpec(uri, OptionalLong.of(expires), Binding.Q_UNSPECIFIED,
                    Map.of("+sip.instance", "\"" + instance + "\"", "reg-id", Integer.toString(regId)));
        }

        @Test
        void sameInstanceAndRegIdReplacesABindingWithADifferentUri() {
            BindingSet before = set(storedInstance(UA1, INSTANCE, 1, CALL, 1), stored(UA2, CALL, 1));
            Accepted a = accepted(apply(request(OTHER_CALL, 1, outbound(UA5, INSTANCE, 1, 600)), before));
            assertEquals(List.of(UA2, UA5), contacts(a.bindings()));
            Binding b = a.bindings().bindings().get(1);
            assertEquals(Optional.of(INSTANCE), b.instanceId());
            assertEquals(OptionalInt.of(1), b.regId());
            assertEquals(OTHER_CALL, b.callId());
        }

        @Test
        void sameInstanceWithAnotherRegIdIsASecondFlow() {
            BindingSet before = set(storedInstance(UA1, INSTANCE, 1, CALL, 1));
            Accepted a = accepted(apply(request(CALL, 2, outbound(UA2, INSTANCE, 2, 600)), before));
            assertEquals(List.of(UA1, UA2), contacts(a.bindings()));
        }

        @Test
        void sameUriWithDifferentRegIdsAreTwoBindings() {
            BindingSet before = set(storedInstance(UA1, INSTANCE, 1, CALL, 1));
            Accepted a = accepted(apply(request(CALL, 2, outbound(UA1, INSTANCE, 2, 600)), before));
            assertEquals(2, a.bindings().size());
        }

        @Test
        void sameInstanceAndRegIdFromTheSameCallIdWithLowerCSeqIsRejectedWith500() {
            BindingSet before = set(storedInstance(UA1, INSTANCE, 1, CALL, 7));
            rejected(apply(request(CALL, 6, outbound(UA5, INSTANCE, 1, 600)), before), 500);
        }

        @Test
        void sameInstanceAndRegIdWithExpiresZeroRemovesTheFlowWhateverItsUri() {
            BindingSet before = set(storedInstance(UA1, INSTANCE, 1, CALL, 7));
            Accepted a = accepted(apply(request(CALL, 8, outbound(UA5, INSTANCE, 1, 0)), before));
            assertTrue(a.bindings().isEmpty());
        }

        @Test
        void instanceWithoutRegIdFallsBackToUriComparison() {
            ContactSpec noRegId = new ContactSpec(UA5, OptionalLong.of(600), Binding.Q_UNSPECIFIED,
                    Map.of("+sip.instance", "\"" + INSTANCE + "\""));
            Accepted a = accepted(apply(request(CALL, 2, noRegId), set(storedInstance(UA1, INSTANCE, 1, CALL, 1))));
            assertEquals(List.of(UA1, UA5), contacts(a.bindings()));
        }

        @Test
        void instanceAndRegIdAreStoredWithTheNewBinding() {
            Binding b = only(accepted(apply(request(CALL, 1, outbound(UA1, INSTANCE, 3, 600)), BindingSet.EMPTY))
                    .bindings());
            assertEquals(Optional.of(INSTANCE), b.instanceId());
            assertEquals(OptionalInt.of(3), b.regId());
            assertEquals("\"" + INSTANCE + "\"", b.params().get("+sip.instance"));
        }
    }

    @Nested
    class Purity {

        @Test
        void applyingTwiceGivesTheSameOutcome() {
            BindingSet before = set(stored(UA1, CALL, 1), stored(UA2, OTHER_CALL, 9, NOW.minusSeconds(1)));
            RegisterRequest r = request(CALL, 2, contact(UA1, 600), contact(UA3));
            assertEquals(apply(r, before), apply(r, before));
        }

        @Test
        void unchangedOutcomeHandsBackTheStoredSetItself() {
            BindingSet before = set(stored(UA1, CALL, 1));
            assertSame(before, accepted(apply(request(CALL, 1), before)).bindings());
        }

        @Test
        void laterInstantExpiresWhatAnEarlierOneKept() {
            BindingSet before = set(stored(UA1, CALL, 1, NOW.plusSeconds(60)));
            RegisterRequest fetch = request(CALL, 1);
            assertEquals(1, accepted(RegistrarRules.apply(fetch, before, POLICY, NOW.plusSeconds(59)))
                    .bindings().size());
            assertEquals(0, accepted(RegistrarRules.apply(fetch, before, POLICY, NOW.plusSeconds(60)))
                    .bindings().size());
        }
    }

    @Nested
    class RequestAndPolicyValidation {

        @Test
        void negativeExpiresHeaderIsRefused() {
            assertThrows(IllegalArgumentException.class, () -> request(CALL, 1, OptionalLong.of(-1), contact(UA1)));
        }

        @Test
        void negativeExpiresParamIsRefused() {
            assertThrows(IllegalArgumentException.class, () -> contact(UA1, -1));
        }

        @Test
        void cseqOutside32BitsIsRefused() {
            assertThrows(IllegalArgumentException.class, () -> request(CALL, -1, contact(UA1)));
            assertThrows(IllegalArgumentException.class, () -> request(CALL, 0x1_0000_0000L, contact(UA1)));
            request(CALL, 0xFFFF_FFFFL, contact(UA1));
        }

        @Test
        void blankCallIdIsRefused() {
            assertThrows(IllegalArgumentException.class, () -> request(" ", 1, contact(UA1)));
        }

        @Test
        void largestCSeqStillOrdersCorrectly() {
            rejected(apply(request(CALL, 0xFFFF_FFFEL, contact(UA1, 600)), set(stored(UA1, CALL, 0xFFFF_FFFFL))),
                    500);
        }

        @Test
        void policyRefusesInconsistentSettings() {
            assertThrows(IllegalArgumentException.class, () -> new RegistrarPolicy(0, 3600, 7200, 1));
            assertThrows(IllegalArgumentException.class, () -> new RegistrarPolicy(60, 30, 7200, 1));
            assertThrows(IllegalArgumentException.class, () -> new RegistrarPolicy(60, 9000, 7200, 1));
            assertThrows(IllegalArgumentException.class, () -> new RegistrarPolicy(60, 3600, 7200, 0));
            assertThrows(IllegalArgumentException.class,
                    () -> new RegistrarPolicy(60, 3600, RegistrarPolicy.MAX_DELTA_SECONDS + 1, 1));
        }

        @Test
        void largestPolicyExpiryStillGivesARepresentableExpiry() {
            RegistrarPolicy wide = new RegistrarPolicy(1, 3600, RegistrarPolicy.MAX_DELTA_SECONDS, 1);
            Accepted a = accepted(RegistrarRules.apply(request(CALL, 1, OptionalLong.of(Long.MAX_VALUE), contact(UA1)),
                    BindingSet.EMPTY, wide, NOW));
            assertEquals(NOW.plusSeconds(RegistrarPolicy.MAX_DELTA_SECONDS), only(a.bindings()).expiresAt());
        }

        @Test
        void rejectionNeedsAnErrorStatus() {
            assertThrows(IllegalArgumentException.class, () -> Rejected.of(200, "OK"));
        }
    }
}
