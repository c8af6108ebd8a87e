package org.p2psip.loadtest.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.p2psip.loadtest.bench.ClientTransaction.Kind;
import org.p2psip.loadtest.bench.ClientTransaction.Reaction;
import org.p2psip.loadtest.bench.ClientTransaction.State;
import org.p2psip.loadtest.bench.ClientTransaction.Tick;

class ClientTransactionTest {

    private static final long MS = 1_000_000L;
    private final SipTimers timers = SipTimers.RFC3261;

    /** Instants (ms after the first send) at which the transaction asks for a retransmission, up to its timeout. */
    private static List<Long> retransmitSchedule(ClientTransaction t) {
        List<Long> at = new ArrayList<>();
        while (true) {
            long when = t.nextDeadline();
            Tick tick = t.onTimer(when);
            if (tick == Tick.RETRANSMIT) {
                at.add(when / MS);
            } else {
                at.add(-when / MS);
                return at;
            }
        }
    }

    @Test
    void nonInviteTimerEDoublesUpToT2AndTimerFEndsItAt64T1() {
        // §17.1.2.2: 500, 1000, 2000, then every 4000 ms; Timer F at 32 s (shown negative).
        assertEquals(List.of(500L, 1500L, 3500L, 7500L, 11500L, 15500L, 19500L, 23500L, 27500L, 31500L, -32000L),
                retransmitSchedule(new ClientTransaction(Kind.NON_INVITE, false, timers, 0)));
    }

    @Test
    void inviteTimerADoublesWithoutCapUntilTimerB() {
        // §17.1.1.2: 500, 1000, 2000, 4000, 8000, 16000 ms intervals; Timer B at 32 s.
        assertEquals(List.of(500L, 1500L, 3500L, 7500L, 15500L, 31500L, -32000L),
                retransmitSchedule(new ClientTransaction(Kind.INVITE, false, timers, 0)));
    }

    @Test
    void reliableTransportNeverRetransmitsButStillTimesOut() {
        assertEquals(List.of(-32000L), retransmitSchedule(new ClientTransaction(Kind.NON_INVITE, true, timers, 0)));
        assertEquals(List.of(-32000L), retransmitSchedule(new ClientTransaction(Kind.INVITE, true, timers, 0)));
    }

    @Test
    void nonInviteInProceedingRetransmitsEveryT2() {
        ClientTransaction t = new ClientTransaction(Kind.NON_INVITE, false, timers, 0);
        assertEquals(Reaction.PROVISIONAL, t.onResponse(100, 100 * MS));
        assertEquals(State.PROCEEDING, t.state());
        assertEquals(500 * MS, t.nextDeadline(), "the pending Timer E keeps its schedule");
        assertEquals(Tick.RETRANSMIT, t.onTimer(500 * MS));
        assertEquals(4500 * MS, t.nextDeadline(), "then T2");
        assertEquals(Reaction.IGNORED, t.onResponse(100, 600 * MS));
        assertEquals(Reaction.FINAL, t.onResponse(200, 700 * MS));
        assertEquals(State.TERMINATED, t.state());
        assertEquals(Long.MAX_VALUE, t.nextDeadline());
        assertEquals(Reaction.IGNORED, t.onResponse(200, 800 * MS), "a retransmitted final is ignored");
    }

    @Test
    void inviteProvisionalStopsRetransmissionButNotTheTimeout() {
        ClientTransaction t = new ClientTransaction(Kind.INVITE, false, timers, 0);
        assertEquals(Reaction.PROVISIONAL, t.onResponse(100, 10 * MS));
        assertEquals(32_000 * MS, t.nextDeadline());
        assertEquals(Tick.NOTHING, t.onTimer(31_999 * MS));
        assertEquals(Tick.TIMEOUT, t.onTimer(32_000 * MS));
    }

    @Test
    void inviteTwoXxTerminatesAndFailureGoesToCompletedUntilTimerD() {
        ClientTransaction ok = new ClientTransaction(Kind.INVITE, false, timers, 0);
        assertEquals(Reaction.FINAL, ok.onResponse(200, 5 * MS));
        assertEquals(State.TERMINATED, ok.state());

        ClientTransaction busy = new ClientTransaction(Kind.INVITE, false, timers, 0);
        assertEquals(Reaction.FINAL, busy.onResponse(486, 5 * MS));
        assertEquals(State.COMPLETED, busy.state());
        assertEquals(Reaction.REPEAT_ACK, busy.onResponse(486, 600 * MS), "answer a retransmitted failure with ACK");
        assertEquals(5 * MS + ClientTransaction.TIMER_D_NANOS, busy.nextDeadline());
        assertEquals(Tick.TERMINATED, busy.onTimer(busy.nextDeadline()));
        assertEquals(Reaction.IGNORED, busy.onResponse(486, busy.nextDeadline()));
    }
}
