package org.p2psip.servlet.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.net.DatagramPacket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;

class CallOrderedQueueTest {

    private static byte[] message(String startLine, String... headers) {
        return (startLine + "\r\n" + String.join("\r\n", headers) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String callId(byte[] data) {
        int[] at = CallOrderedQueue.callIdValue(data, data.length);
        return at == null ? null : new String(data, at[0], at[1] - at[0], StandardCharsets.ISO_8859_1);
    }

    private static DatagramQueuedMessageDispatch dispatch(String callId, String startLine, long at) {
        byte[] data = message(startLine, "Via: SIP/2.0/UDP h;branch=z9hG4bK1", "Call-ID: " + callId);
        return new DatagramQueuedMessageDispatch(
                new DatagramPacket(data, data.length, InetAddress.getLoopbackAddress(), 5060), at);
    }

    private static String startLine(DatagramQueuedMessageDispatch d) {
        String text = new String(d.packet.getData(), 0, d.packet.getLength(), StandardCharsets.ISO_8859_1);
        return text.substring(0, text.indexOf('\r'));
    }

    /** Runs {@code task} on a thread of its own, as the RI's workers are. */
    private static <T> T onWorker(ExecutorService worker, java.util.concurrent.Callable<T> task) throws Exception {
        return worker.submit(task).get(5, TimeUnit.SECONDS);
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
    void theSameCallIdInEitherFormIsOneCall() {
        byte[] ringing = message("SIP/2.0 180 Ringing", "Call-ID: call-17@host");
        byte[] ok = message("SIP/2.0 200 OK", "i: call-17@host", "Contact: <sip:b@h>");
        byte[] other = message("SIP/2.0 200 OK", "i: call-18@host");
        assertEquals(CallOrderedQueue.callOf(ringing, ringing.length), CallOrderedQueue.callOf(ok, ok.length));
        assertNotEquals(CallOrderedQueue.callOf(ringing, ringing.length), CallOrderedQueue.callOf(other, other.length));
    }

    @Test
    void aCallsNextMessageWaitsForItsHolderWhileOtherCallsGoToOtherWorkers() throws Exception {
        CallOrderedQueue queue = new CallOrderedQueue();
        DatagramQueuedMessageDispatch ringing = dispatch("a", "SIP/2.0 180 Ringing", 1);
        DatagramQueuedMessageDispatch ok = dispatch("a", "SIP/2.0 200 OK", 2);
        DatagramQueuedMessageDispatch other = dispatch("b", "REGISTER sip:h SIP/2.0", 3);
        queue.offer(ringing);
        queue.offer(ok);
        queue.offer(other);
        ExecutorService first = Executors.newSingleThreadExecutor();
        ExecutorService second = Executors.newSingleThreadExecutor();
        try {
            assertSame(ringing, onWorker(first, queue::take));
            assertSame(other, onWorker(second, queue::take), "the 200 waits behind its 180; the next call goes on");
            assertEquals(1, queue.size());
            assertNull(onWorker(second, queue::poll), "nothing free for the second worker");
            assertSame(ok, onWorker(first, queue::take), "the holder of call a takes its 200 next");
            assertEquals(0, queue.size());
            assertNull(onWorker(first, queue::poll));
        } finally {
            first.shutdownNow();
            second.shutdownNow();
        }
    }

    @Test
    void manyWorkersKeepEveryCallsOrder() throws Exception {
        CallOrderedQueue queue = new CallOrderedQueue();
        int calls = 20;
        int perCall = 50;
        for (int n = 0; n < perCall; n++) {
            for (int c = 0; c < calls; c++) {
                queue.offer(dispatch("c" + c, "SIP/2.0 " + (100 + n) + " X", n));
            }
        }
        // Each worker notes a message before it takes the next: a call's next message can only
        // be taken after that, so the shared log shows every call's messages in handling order.
        List<int[]> handled = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService workers = Executors.newFixedThreadPool(4);
        List<CompletableFuture<Void>> done = new ArrayList<>();
        try {
            for (int w = 0; w < 4; w++) {
                done.add(CompletableFuture.runAsync(() -> {
                    DatagramQueuedMessageDispatch d;
                    while ((d = queue.poll()) != null) {
                        String call = callId(java.util.Arrays.copyOf(d.packet.getData(), d.packet.getLength()));
                        handled.add(new int[] {Integer.parseInt(call.substring(1)),
                            Integer.parseInt(startLine(d).substring(8, 11)) - 100});
                        Thread.onSpinWait();
                    }
                }, workers));
            }
            for (CompletableFuture<Void> f : done) {
                f.get(10, TimeUnit.SECONDS);
            }
            int[] next = new int[calls];
            for (int[] h : handled) {
                assertEquals(next[h[0]], h[1], "call c" + h[0] + " handled out of order");
                next[h[0]]++;
            }
            assertEquals(calls * perCall, handled.size());
            assertEquals(0, queue.size());
        } finally {
            workers.shutdownNow();
        }
    }

    @Test
    void theOldestArrivalIsWhatTheOverloadGateSees() {
        CallOrderedQueue queue = new CallOrderedQueue();
        assertEquals(-1, queue.oldestReceptionMillis());
        for (int i = 0; i < 5; i++) {
            queue.offer(dispatch("o" + i, "REGISTER sip:h SIP/2.0", 1_000 + i));
        }
        assertEquals(1_000, queue.oldestReceptionMillis());
        assertEquals(5, queue.size());
    }
}
