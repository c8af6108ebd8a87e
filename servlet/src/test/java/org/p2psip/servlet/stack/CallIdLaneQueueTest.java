package org.p2psip.servlet.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.DatagramPacket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;

class CallIdLaneQueueTest {

    private static byte[] message(String startLine, String... headers) {
        return (startLine + "\r\n" + String.join("\r\n", headers) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String callId(byte[] data) {
        int[] at = CallIdLaneQueue.callIdValue(data, data.length);
        return at == null ? null : new String(data, at[0], at[1] - at[0], StandardCharsets.ISO_8859_1);
    }

    private static DatagramQueuedMessageDispatch dispatch(byte[] data, long at) {
        return new DatagramQueuedMessageDispatch(
                new DatagramPacket(data, data.length, InetAddress.getLoopbackAddress(), 5060), at);
    }

    @Test
    void callIdIsFoundInAnyCaseAndInCompactFormAndTrimmed() {
        assertEquals("a84b4c76e66710", callId(message("SIP/2.0 180 Ringing", "Via: SIP/2.0/UDP h;branch=z9hG4bK1",
                "Call-ID: a84b4c76e66710", "CSeq: 1 INVITE")));
        assertEquals("x@y", callId(message("INVITE sip:b@h SIP/2.0", "CALL-id \t:  x@y \t")));
        assertEquals("compact", callId(message("SIP/2.0 200 OK", "v: SIP/2.0/UDP h", "i:compact")));
    }

    @Test
    void aHeaderThatOnlyStartsLikeCallIdOrABodyLineIsNotIt() {
        assertNull(callId(message("SIP/2.0 200 OK", "Call-Info: <http://x>", "Identity: abc", "Content-Length: 9")));
        byte[] bodyOnly = "SIP/2.0 200 OK\r\nContent-Length: 11\r\n\r\nCall-ID: no".getBytes(StandardCharsets.ISO_8859_1);
        assertNull(callId(bodyOnly));
        assertNull(callId("garbage".getBytes(StandardCharsets.ISO_8859_1)));
    }

    @Test
    void theResponsesOfOneCallShareALaneAndCallsSpreadOverAll() {
        byte[] ringing = message("SIP/2.0 180 Ringing", "Call-ID: call-17@host");
        byte[] ok = message("SIP/2.0 200 OK", "i: call-17@host", "Contact: <sip:b@h>");
        assertEquals(CallIdLaneQueue.laneOf(ringing, ringing.length, 8), CallIdLaneQueue.laneOf(ok, ok.length, 8));

        Set<Integer> used = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            byte[] m = message("REGISTER sip:h SIP/2.0", "Call-ID: reg-" + i);
            used.add(CallIdLaneQueue.laneOf(m, m.length, 8));
        }
        assertEquals(8, used.size());
    }

    @Test
    void eachWorkerTakesOnlyItsOwnLaneInArrivalOrder() throws Exception {
        CallIdLaneQueue queue = new CallIdLaneQueue(2);
        String[] calls = new String[2];
        for (int i = 0; calls[0] == null || calls[1] == null; i++) {
            byte[] m = message("SIP/2.0 180 Ringing", "Call-ID: c" + i);
            calls[CallIdLaneQueue.laneOf(m, m.length, 2)] = "c" + i;
        }
        for (int n = 0; n < 50; n++) {
            for (String call : calls) {
                queue.offer(dispatch(message("SIP/2.0 " + (100 + n) + " X", "Call-ID: " + call), n));
            }
        }
        assertEquals(100, queue.size());

        List<CompletableFuture<List<String>>> workers = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            workers.add(CompletableFuture.supplyAsync(() -> {
                List<String> seen = new ArrayList<>();
                try {
                    for (int n = 0; n < 50; n++) {
                        byte[] data = queue.take().packet.getData();
                        seen.add(callId(data) + "/" + new String(data, 8, 3, StandardCharsets.ISO_8859_1));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return seen;
            }, runnable -> new Thread(runnable).start()));
        }
        Set<String> callsSeen = new HashSet<>();
        for (CompletableFuture<List<String>> worker : workers) {
            List<String> seen = worker.get(10, TimeUnit.SECONDS);
            String call = seen.get(0).split("/")[0];
            callsSeen.add(call);
            for (int n = 0; n < 50; n++) {
                assertEquals(call + "/" + (100 + n), seen.get(n), "one call's messages, in order");
            }
        }
        assertEquals(Set.of(calls), callsSeen);
        assertEquals(0, queue.size());
    }

    @Test
    void theOldestWaitingMessageIsSeenAcrossLanes() {
        CallIdLaneQueue queue = new CallIdLaneQueue(4);
        assertEquals(-1, queue.oldestReceptionMillis());
        for (int i = 0; i < 20; i++) {
            queue.offer(dispatch(message("REGISTER sip:h SIP/2.0", "Call-ID: o" + i), 1_000 + i));
        }
        assertEquals(1_000, queue.oldestReceptionMillis());
        assertEquals(4, queue.laneCount());
    }

    @Test
    void noLanesIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new CallIdLaneQueue(0));
    }

    @Test
    void aMessageWithoutCallIdGoesToTheFirstLane() {
        byte[] m = message("OPTIONS sip:h SIP/2.0", "Via: SIP/2.0/UDP h");
        assertEquals(0, CallIdLaneQueue.laneOf(m, m.length, 8));
        assertEquals(0, CallIdLaneQueue.laneOf(m, m.length, 1));
    }
}
