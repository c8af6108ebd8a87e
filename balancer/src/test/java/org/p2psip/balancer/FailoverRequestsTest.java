package org.p2psip.balancer;

import org.p2psip.sip.wire.MalformedSipException;
import org.p2psip.sip.wire.SipMessage;
import org.p2psip.sip.wire.SipParser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** Which requests the balancer keeps for failover, for how long, and how many at most. */
class FailoverRequestsTest {

    private static SipMessage parse(String text) {
        try {
            return SipParser.parse(LbText.udp(text));
        } catch (MalformedSipException e) {
            throw new AssertionError(e);
        }
    }

    private static final SipMessage REGISTER = parse(LbText.register("sip:a@b", "c1"));

    @Test
    void onlyNewNonInviteRequestsOutsideADialogAreFailedOver() {
        assertTrue(FailoverRequests.eligible(REGISTER));
        assertFalse(FailoverRequests.eligible(parse(LbText.invite("c2", "z9hG4bK-c2"))), "INVITE's 503 needs an ACK");
        String inDialog = LbText.register("a@b", "c3").replace("To: <sip:a@b>", "To: <sip:a@b>;tag=t9");
        assertFalse(FailoverRequests.eligible(parse(inDialog)), "inside a dialog");
    }

    @Test
    void theFinalAnswerTakesTheEntryAndARetransmissionKeepsWhoRefused() {
        FailoverRequests table = new FailoverRequests();
        table.sent("b1", REGISTER, 0);
        FailoverRequests.Pending pending = table.answered("b1").orElseThrow();
        table.resent("b1", pending, 2);
        table.sent("b1", REGISTER, 5);

        assertEquals(List.of(2), table.answered("b1").orElseThrow().refusedBy());
        assertTrue(table.answered("b1").isEmpty(), "answered once");
    }

    @Test
    void aFullTableKeepsNoMoreUntilItsOldestHaveOutlivedTimerF() {
        FailoverRequests table = new FailoverRequests();
        for (int i = 0; i < FailoverRequests.MAX_PENDING; i++) {
            table.sent("old-" + i, REGISTER, 0);
        }
        table.sent("new", REGISTER, FailoverRequests.LIFETIME_NANOS);
        assertTrue(table.answered("new").isEmpty(), "kept past the bound");

        table.sent("later", REGISTER, FailoverRequests.LIFETIME_NANOS + FailoverRequests.SWEEP_INTERVAL_NANOS);
        assertTrue(table.answered("later").isPresent(), "the entries older than Timer F were not swept");
        assertTrue(table.answered("old-0").isEmpty());
    }

    @Test
    void aTableFullOfYoungEntriesIsSweptOnceASecondNotForEachRequest() {
        FailoverRequests table = new FailoverRequests();
        for (int i = 0; i < FailoverRequests.MAX_PENDING; i++) {
            table.sent("young-" + i, REGISTER, 0);
        }
        for (int i = 0; i < 1_000; i++) {
            table.sent("more-" + i, REGISTER, i * 1_000_000L);
        }
        assertEquals(1, table.sweeps(), "a thousand requests within a second");
        assertTrue(table.answered("more-999").isEmpty(), "the table stays full");

        table.sent("a-second-later", REGISTER, FailoverRequests.SWEEP_INTERVAL_NANOS);
        assertEquals(2, table.sweeps());
    }
}
