package org.p2psip.loadtest.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The lane's logic with a list for a wire and time passed in: no sockets, no sleeping. */
class LaneEngineTest {

    private static final long MS = 1_000_000L;
    private final List<Outgoing> wire = new ArrayList<>();
    private final LaneStats stats = new LaneStats();
    private final FlowContext context =
            new FlowContext("run1", "127.0.0.1:5060", "UDP", "127.0.0.1:40000", "u", "callee", 10, 3600, 0, null, 0);

    private LaneEngine engine(Scenario scenario, double rate, long count, boolean reliable) {
        return engine(scenario, rate, count, reliable, false);
    }

    private LaneEngine engine(Scenario scenario, double rate, long count, boolean reliable, boolean honourRetryAfter) {
        return new LaneEngine(context, scenario::flow, 0, 1, new OpenLoopPacer(0, rate, count, 60_000 * MS), reliable,
                SipTimers.RFC3261, 40_000 * MS, 1000, honourRetryAfter, stats, new LiveCounters(), wire::add);
    }

    private static SipMessage answer(Outgoing request, int status, String extra) {
        SipMessage r = SipMessage.parse(request.bytes());
        String text = new String(UasResponder.response(r, status, "X", true, extra), StandardCharsets.UTF_8);
        if (status >= 200 && r.toTag() == null && "REGISTER".equals(r.method())) {
            text = text.replace("\r\nCall-ID", ";tag=t\r\nCall-ID");
        }
        return SipMessage.parse(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void sendsOnScheduleAndRecordsLatencyOfAnsweredRegisters() {
        LaneEngine e = engine(Scenario.REGISTER, 1000, 3, false);
        e.tick(0);
        assertEquals(1, wire.size());
        e.tick(2 * MS);
        assertEquals(3, wire.size(), "requests 1 and 2 fell due by 2 ms");
        for (Outgoing o : wire) {
            e.onMessage(answer(o, 200, null), 4 * MS);
        }
        e.tick(5 * MS);
        assertTrue(e.finished());
        assertEquals(3, stats.succeeded);
        assertEquals(4000, stats.latencyMicros.getMaxValue(), 10);
        assertEquals(2000, stats.latencyMicros.getMinValue(), 10);
    }

    @Test
    void retransmitsOverUdpUntilAnsweredAndCountsTimeouts() {
        LaneEngine e = engine(Scenario.REGISTER, 1000, 2, false);
        e.tick(0);
        e.tick(1 * MS);
        Outgoing first = wire.get(0);
        e.tick(500 * MS);
        e.tick(501 * MS);
        assertEquals(4, wire.size(), "both retransmitted after T1");
        assertEquals(first.branch(), wire.get(2).branch(), "a retransmission keeps its branch");
        e.onMessage(answer(first, 200, null), 600 * MS);
        for (long t = 600; t <= 33_000; t += 100) {
            e.tick(t * MS);
        }
        assertTrue(e.finished());
        assertEquals(1, stats.succeeded);
        assertEquals(Map.of("timeout", 1L), stats.failures);
        assertEquals(11, stats.retransmissions, "1 for the answered one, 10 (Timer E up to T2) for the other");
    }

    @Test
    void overTcpNothingIsRetransmitted() {
        LaneEngine e = engine(Scenario.REGISTER, 1000, 1, true);
        for (long t = 0; t <= 33_000; t += 100) {
            e.tick(t * MS);
        }
        assertEquals(1, wire.size());
        assertEquals(Map.of("timeout", 1L), stats.failures);
    }

    @Test
    void aCallSendsAckAndByeAlongTheRouteSetAndSucceedsOnTheByesAnswer() {
        LaneEngine e = engine(Scenario.CALL, 1000, 1, false);
        e.tick(0);
        Outgoing invite = wire.get(0);
        assertEquals("INVITE", invite.method());
        e.onMessage(answer(invite, 100, null), 1 * MS);
        e.tick(600 * MS);
        assertEquals(1, wire.size(), "no INVITE retransmission once a provisional arrived");
        SipMessage ok = answer(invite, 200, "Contact: <sip:uas@127.0.0.1:7000>\r\n");
        ok = SipMessage.parse(new String(UasResponder.response(SipMessage.parse(new String(invite.bytes(),
                StandardCharsets.UTF_8).replace("Max-Forwards: 70\r\n", "Max-Forwards: 70\r\nRecord-Route: <sip:127.0.0.1:5099;lr>\r\n")
                .getBytes(StandardCharsets.UTF_8)), 200, "OK", true, "Contact: <sip:uas@127.0.0.1:7000>\r\n"),
                StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8));
        e.onMessage(ok, 700 * MS);
        assertEquals(3, wire.size());
        Outgoing ack = wire.get(1);
        Outgoing bye = wire.get(2);
        assertEquals("ACK", ack.method());
        assertEquals("BYE", bye.method());
        String byeText = new String(bye.bytes(), StandardCharsets.UTF_8);
        assertTrue(byeText.startsWith("BYE sip:uas@127.0.0.1:7000 SIP/2.0"), byeText);
        assertTrue(byeText.contains("Route: <sip:127.0.0.1:5099;lr>"), byeText);
        assertTrue(byeText.contains("CSeq: 2 BYE"), byeText);
        assertEquals(5099, bye.destination().getPort(), "the first route is the next hop");

        e.onMessage(ok, 800 * MS);
        assertEquals("ACK", wire.get(3).method(), "a retransmitted 2xx gets the ACK again");
        e.onMessage(answer(bye, 200, null), 900 * MS);
        e.tick(901 * MS);
        assertTrue(e.finished());
        assertEquals(1, stats.succeeded);
        assertEquals(900_000, stats.latencyMicros.getMaxValue(), 1000);
    }

    @Test
    void aRejectedInviteIsAckedAndCountedByStatus() {
        LaneEngine e = engine(Scenario.CALL, 1000, 1, false);
        e.tick(0);
        SipMessage busy = answer(wire.get(0), 486, null);
        e.onMessage(busy, 5 * MS);
        assertEquals("ACK", wire.get(1).method());
        assertEquals(wire.get(0).branch(), wire.get(1).branch(), "the failure ACK belongs to the INVITE transaction");
        e.onMessage(busy, 6 * MS);
        assertEquals(3, wire.size(), "a retransmitted 486 is ACKed again");
        e.tick(7 * MS);
        assertTrue(e.finished());
        assertEquals(Map.of("486", 1L), stats.failures);
    }

    @Test
    void aRegisterShedWithRetryAfterIsSentAgainOnceAfterTheWaitWithTheNextCSeq() {
        LaneEngine e = engine(Scenario.REGISTER, 1000, 1, false, true);
        e.tick(0);
        Outgoing first = wire.get(0);
        e.onMessage(answer(first, 503, "Retry-After: 2\r\n"), 3 * MS);
        e.tick(1_999 * MS);
        assertEquals(1, wire.size(), "nothing is sent before Retry-After has passed");
        e.tick(2_003 * MS);
        assertEquals(2, wire.size());
        SipMessage again = SipMessage.parse(wire.get(1).bytes());
        SipMessage original = SipMessage.parse(first.bytes());
        assertEquals(original.callId(), again.callId(), "the same registration");
        assertEquals(original.cseq() + 1, again.cseq(), "a new request of the registration gets the next CSeq");
        assertTrue(!first.branch().equals(wire.get(1).branch()), "a new transaction");
        e.onMessage(answer(wire.get(1), 200, null), 2_010 * MS);
        e.tick(2_011 * MS);
        assertTrue(e.finished());
        assertEquals(1, stats.succeeded);
        assertEquals(1, stats.retriedAfter503);
        assertEquals(2_010_000, stats.latencyMicros.getMaxValue(), 2_000, "the wait counts in the latency");
    }

    @Test
    void aSecondServiceUnavailableFailsTheFlow() {
        LaneEngine e = engine(Scenario.REGISTER, 1000, 1, false, true);
        e.tick(0);
        e.onMessage(answer(wire.get(0), 503, "Retry-After: 1\r\n"), 1 * MS);
        e.tick(1_001 * MS);
        e.onMessage(answer(wire.get(1), 503, "Retry-After: 1\r\n"), 1_002 * MS);
        e.tick(1_003 * MS);
        assertTrue(e.finished());
        assertEquals(Map.of("503", 1L), stats.failures);
        assertEquals(2, wire.size());
    }

    @Test
    void withoutHonouringOrWithoutRetryAfterA503Fails() {
        LaneEngine plain = engine(Scenario.REGISTER, 1000, 1, false, false);
        plain.tick(0);
        plain.onMessage(answer(wire.get(0), 503, "Retry-After: 1\r\n"), 1 * MS);
        plain.tick(2 * MS);
        assertTrue(plain.finished());
        LaneEngine noHeader = engine(Scenario.REGISTER, 1000, 1, false, true);
        noHeader.tick(0);
        noHeader.onMessage(answer(wire.get(1), 503, null), 1 * MS);
        noHeader.tick(2 * MS);
        assertTrue(noHeader.finished());
        assertEquals(Map.of("503", 2L), stats.failures);
        assertEquals(0, stats.retriedAfter503);
    }

    @Test
    void aRetryStillWaitingWhenTheDrainEndsIsUnfinished() {
        LaneEngine e = new LaneEngine(context, Scenario.REGISTER::flow, 0, 1, new OpenLoopPacer(0, 10, 1, 60_000 * MS),
                false, SipTimers.RFC3261, 100 * MS, 1000, true, stats, new LiveCounters(), wire::add);
        e.tick(0);
        e.onMessage(answer(wire.get(0), 503, "Retry-After: 5\r\n"), 1 * MS);
        e.tick(50 * MS);
        assertFalse(e.finished(), "the retry is still to come");
        e.tick(200 * MS);
        assertTrue(e.finished());
        assertEquals(Map.of("unfinished", 1L), stats.failures);
    }

    @Test
    void drainLimitEndsStragglersAsUnfinished() {
        LaneEngine e = new LaneEngine(context, Scenario.REGISTER::flow, 0, 1, new OpenLoopPacer(0, 10, 1, 60_000 * MS),
                false, SipTimers.RFC3261, 100 * MS, 1000, false, stats, new LiveCounters(), wire::add);
        e.tick(0);
        e.tick(99 * MS);
        assertFalse(e.finished());
        e.tick(100 * MS);
        assertTrue(e.finished());
        assertEquals(Map.of("unfinished", 1L), stats.failures);
    }

    @Test
    void theInFlightLimitRefusesRatherThanHoards() {
        LaneEngine e = new LaneEngine(context, Scenario.REGISTER::flow, 0, 1, new OpenLoopPacer(0, 1000, 5, 60_000 * MS),
                false, SipTimers.RFC3261, 100 * MS, 2, false, stats, new LiveCounters(), wire::add);
        e.tick(4 * MS);
        assertEquals(2, wire.size());
        assertEquals(Map.of("in-flight-limit", 3L), stats.failures);
        assertEquals(5, stats.attempted);
    }
}
