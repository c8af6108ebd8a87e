package org.p2psip.loadtest.connections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.Test;

class RefreshLoadTest {

    private static final InetSocketAddress LOCAL = new InetSocketAddress("127.0.0.10", 40000);

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void aStatusLineSplitAcrossReadsIsStillOneAnswer() {
        RefreshLoad load = new RefreshLoad("example.com", 2, 10);
        load.next(0, LOCAL, 1_000);

        load.received(0, bytes("SIP/2.0 100 Trying\r\nVia: SIP/2.0/TCP 127.0.0.10:40000\r\n\r\nSIP/2."), 2_000);
        load.received(0, bytes("0 2"), 3_000);
        load.received(0, bytes("00 OK\r\nCSeq: 1 REGISTER\r\n\r\n"), 1_001_000);

        RefreshReport r = load.initialReport(1);
        assertEquals(1, r.sent());
        assertEquals(Map.of(200, 1), r.finals(), "the 100 is not final; the Via's SIP/2.0/ is no status line");
        assertEquals(0, r.failed());
        assertEquals(1.0, r.latencyMillis(0.5));
    }

    @Test
    void eachRegisterCountsInThePhaseItWasSentInAndUnansweredOnesFail() {
        RefreshLoad load = new RefreshLoad("example.com", 2, 10);
        load.next(0, LOCAL, 1);
        load.next(1, LOCAL, 1);
        load.startRefreshes();
        load.received(0, bytes("SIP/2.0 200 OK\r\n\r\n"), 2);
        load.next(0, LOCAL, 3);
        load.next(0, LOCAL, 4);
        load.received(0, bytes("SIP/2.0 503 Service Unavailable\r\n\r\n"), 5);

        RefreshReport initial = load.initialReport(1);
        RefreshReport refreshes = load.refreshReport(1);
        assertEquals(2, initial.sent());
        assertEquals(1, initial.ok());
        assertEquals(1, initial.unanswered(), "connection 1 never got an answer");
        assertEquals(2, refreshes.sent());
        assertEquals(1, refreshes.unanswered(), "the turn came again before the first refresh was answered");
        assertEquals(Map.of(503, 1), refreshes.finals());
        assertEquals(2, refreshes.failed());
        assertTrue(refreshes.text("refreshes:").contains("1x 503"), refreshes.text("refreshes:"));
    }

    @Test
    void eachConnectionRegistersItsOwnAorWithACountingCseq() {
        RefreshLoad load = new RefreshLoad("example.com", 8, 10);
        String first = new String(load.next(7, LOCAL, 1), StandardCharsets.US_ASCII);
        String second = new String(load.next(7, LOCAL, 2), StandardCharsets.US_ASCII);

        assertTrue(first.contains("\r\nTo: <sip:conn7@example.com>\r\n"), first);
        assertTrue(first.contains("\r\nContact: <sip:conn7@127.0.0.10:40000;transport=tcp>\r\n"), first);
        assertTrue(first.contains("\r\nCSeq: 1 REGISTER\r\n") && second.contains("\r\nCSeq: 2 REGISTER\r\n"));
        assertEquals(first.lines().filter(l -> l.startsWith("Call-ID:")).findFirst(),
                second.lines().filter(l -> l.startsWith("Call-ID:")).findFirst(), "a refresh keeps its Call-ID");
    }
}
