package org.p2psip.servlet.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;

/** The partial call records and the rules by which a call's partials become one. */
class CallRecordTest {

    static final Instant T0 = Instant.parse("2026-11-27T10:00:00.123Z");
    static final String CALL = "a84b4c76e66710@pc33.atlanta.com";

    static CallRecord answered(Instant at, Instant answeredAt, String node) {
        return CallRecord.invite(CALL, "sip:alice@atlanta.com", "sip:bob@biloxi.com", node, at, 200, answeredAt);
    }

    @Test
    void answeredInviteCarriesStartAnswerStatusAndItsNode() {
        CallRecord r = answered(T0, T0.plusMillis(2_500), "10.0.0.2:5060");
        assertEquals(Optional.of(T0), r.startedAt());
        assertEquals(Optional.of(T0.plusMillis(2_500)), r.answeredAt());
        assertEquals(Optional.empty(), r.endedAt());
        assertEquals(Optional.empty(), r.failedAt());
        assertEquals(OptionalInt.of(200), r.status());
        assertEquals(Optional.of("10.0.0.2:5060"), r.inviteNode());
        assertEquals(Optional.empty(), r.byeNode());
    }

    @Test
    void failedInviteEndsWhenItsAnswerWentUpstream() {
        CallRecord r = CallRecord.invite(CALL, "sip:alice@atlanta.com", "sip:bob@biloxi.com", "n1", T0, 486,
                T0.plusSeconds(3));
        assertEquals(Optional.empty(), r.answeredAt());
        assertEquals(Optional.of(T0.plusSeconds(3)), r.failedAt());
        assertEquals(Optional.of(T0.plusSeconds(3)), r.endedAt());
        assertEquals(Optional.empty(), r.duration());
    }

    @Test
    void inviteAndByeFromTwoNodesMakeOneCallWithItsDuration() {
        CallRecord invite = answered(T0, T0.plusSeconds(2), "n1");
        CallRecord bye = CallRecord.bye(CALL, "n2", T0.plusSeconds(62));
        CallRecord call = invite.mergedWith(bye);
        assertEquals(Optional.of(T0), call.startedAt());
        assertEquals(Optional.of(T0.plusSeconds(2)), call.answeredAt());
        assertEquals(Optional.of(T0.plusSeconds(62)), call.endedAt());
        assertEquals(OptionalInt.of(200), call.status());
        assertEquals(Optional.of("n1"), call.inviteNode());
        assertEquals(Optional.of("n2"), call.byeNode());
        assertEquals(Optional.of(Duration.ofSeconds(60)), call.duration());
        assertEquals(call, bye.mergedWith(invite), "the order partials reach the database in must not matter");
    }

    @Test
    void aByeRetransmittedThroughAnotherNodeHangsUpAtTheFirstCopy() {
        CallRecord invite = answered(T0, T0.plusSeconds(2), "n1");
        CallRecord first = CallRecord.bye(CALL, "n2", T0.plusSeconds(10));
        CallRecord again = CallRecord.bye(CALL, "n3", T0.plusSeconds(10).plusMillis(500));
        assertEquals(Optional.of(T0.plusSeconds(10)), invite.mergedWith(first).mergedWith(again).endedAt());
        assertEquals(Optional.of(T0.plusSeconds(10)), invite.mergedWith(again).mergedWith(first).endedAt());
        assertEquals(Optional.of(Duration.ofSeconds(8)), again.mergedWith(invite).mergedWith(first).duration());
    }

    @Test
    void aHangUpWrittenBeforeItsInviteIsTheEndUntilTheInviteSaysMore() {
        CallRecord bye = CallRecord.bye(CALL, "n2", T0.plusSeconds(10));
        assertEquals(Optional.of(T0.plusSeconds(10)), bye.endedAt());
        assertEquals(Optional.empty(), bye.duration());
    }

    @Test
    void anAnsweredAttemptWinsOverAFailedOneOfTheSameCallId() {
        CallRecord failed = CallRecord.invite(CALL, "sip:alice@atlanta.com", "sip:bob@biloxi.com", "n1", T0, 422,
                T0.plusMillis(30));
        CallRecord retried = answered(T0.plusMillis(100), T0.plusSeconds(1), "n2");
        CallRecord bye = CallRecord.bye(CALL, "n3", T0.plusSeconds(5));
        for (CallRecord call : List.of(failed.mergedWith(bye).mergedWith(retried),
                bye.mergedWith(retried).mergedWith(failed), retried.mergedWith(failed).mergedWith(bye))) {
            assertEquals(OptionalInt.of(200), call.status(), call.toString());
            assertEquals(Optional.of(T0), call.startedAt(), call.toString());
            assertEquals(Optional.of(T0.plusSeconds(5)), call.endedAt(), call.toString());
            assertEquals(Optional.of(Duration.ofSeconds(4)), call.duration(), call.toString());
        }
    }

    @Test
    void aLaterFailureReplacesAnEarlierOne() {
        CallRecord busy = CallRecord.invite(CALL, "a", "b", "n1", T0, 486, T0.plusSeconds(1));
        CallRecord gone = CallRecord.invite(CALL, "a", "b", "n1", T0.plusSeconds(2), 480, T0.plusSeconds(3));
        assertEquals(OptionalInt.of(480), busy.mergedWith(gone).status());
        assertEquals(OptionalInt.of(480), gone.mergedWith(busy).status());
        assertEquals(Optional.of(T0.plusSeconds(3)), gone.mergedWith(busy).endedAt());
    }

    @Test
    void mergingARecordWithItselfChangesNothing() {
        CallRecord call = answered(T0, T0.plusSeconds(2), "n1").mergedWith(CallRecord.bye(CALL, "n2", T0.plusSeconds(9)));
        assertEquals(call, call.mergedWith(call));
    }

    @Test
    void recordsOfTwoCallsDoNotMerge() {
        assertThrows(IllegalArgumentException.class,
                () -> CallRecord.bye("one", "n", T0).mergedWith(CallRecord.bye("two", "n", T0)));
    }

    @Test
    void timesAreKeptToTheMillisecond() {
        CallRecord r = CallRecord.bye(CALL, "n", Instant.parse("2026-11-27T10:00:00.123987Z"));
        assertEquals(Optional.of(T0), r.endedAt());
    }

    @Test
    void textFromTheWireIsCutToItsColumnWithoutControlCharacters() {
        String longCallId = "x".repeat(300);
        CallRecord r = CallRecord.invite(longCallId, "sip:a\u0000b@x", "sip:b@x", "n\r\n1", T0, 200, T0);
        assertEquals(ColumnText.LONG, r.callId().length());
        assertEquals(Optional.of("sip:a?b@x"), r.caller());
        assertEquals(Optional.of("n??1"), r.inviteNode());
    }

    @Test
    void aCutNeverSplitsACharacter() {
        String text = "x".repeat(ColumnText.LONG - 1) + "\uD83D\uDE00";
        String fitted = ColumnText.fit(text, ColumnText.LONG);
        assertEquals(ColumnText.LONG - 1, fitted.length());
        assertTrue(ColumnText.fits(fitted, ColumnText.LONG));
    }

    @Test
    void recordsOutsideTheirColumnsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> CallRecord.bye(" ", "n", T0));
        assertThrows(IllegalArgumentException.class, () -> new CallRecord("c\n", Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), OptionalInt.empty(),
                Optional.empty(), Optional.empty()));
        assertThrows(IllegalArgumentException.class, () -> new CallRecord(CALL, Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), OptionalInt.of(180),
                Optional.empty(), Optional.empty()));
        assertThrows(IllegalArgumentException.class, () -> new CallRecord(CALL, Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), OptionalInt.empty(),
                Optional.of("n".repeat(ColumnText.SHORT + 1)), Optional.empty()));
    }
}
