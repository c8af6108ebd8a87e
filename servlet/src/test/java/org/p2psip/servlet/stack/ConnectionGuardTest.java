package org.p2psip.servlet.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.sip.wire.ConnectionLimits;
import org.p2psip.core.guard.BadInputLog;
import org.p2psip.core.guard.OverloadGate;
import org.p2psip.core.guard.SourceGuard;

class ConnectionGuardTest {

    private static final byte[] REGISTER = ("REGISTER sip:p2psip.test SIP/2.0\r\nVia: SIP/2.0/TCP 127.0.0.9;branch=z9hG4bK1"
            + "\r\nMax-Forwards: 70\r\nTo: <sip:a@p2psip.test>\r\nFrom: <sip:a@p2psip.test>;tag=1\r\nCall-ID: c\r\n"
            + "CSeq: 1 REGISTER\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII);

    private ConnectionGuard guard;
    private EdgeGuards edge;

    private void start(ConnectionLimits limits) {
        edge = new EdgeGuards(SourceGuard.off(), BadInputLog.standard(),
                new OverloadGate(Duration.ofSeconds(5), Integer.MAX_VALUE), Duration.ofSeconds(1), 65_535, limits);
        guard = new ConnectionGuard(limits, SourceGuard.off(), "test");
    }

    @AfterEach
    void stop() {
        guard.close();
    }

    /** A connection that remembers being closed. */
    private static final class Peer implements StreamGuard.Connection {
        final AtomicBoolean closed = new AtomicBoolean();

        @Override
        public void parse(byte[] bytes) {
        }

        @Override
        public void refuse(byte[] answer) {
            closed.set(true);
        }

        @Override
        public void close() {
            closed.set(true);
        }
    }

    private Peer connect(String ip) throws Exception {
        Peer p = new Peer();
        new StreamGuard(guard, edge, InetAddress.getByName(ip), 5060).open(p);
        return p;
    }

    private Peer connectAndSpeak(String ip) throws Exception {
        Peer p = new Peer();
        StreamGuard s = new StreamGuard(guard, edge, InetAddress.getByName(ip), 5060);
        s.open(p);
        s.feed(REGISTER, p);
        return p;
    }

    private static void awaitClosed(Peer p) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(5);
        while (!p.closed.get() && Instant.now().isBefore(deadline)) {
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }

    @Test
    void theOldestSilentConnectionMakesRoomWhenTheTableIsFull() throws Exception {
        start(new ConnectionLimits(Duration.ofSeconds(60), Duration.ofSeconds(60), 3, 2));
        Peer phone = connectAndSpeak("127.0.0.3");
        Peer silent1 = connect("127.0.0.2");
        Peer silent2 = connect("127.0.0.2");

        Peer newcomer = connect("127.0.0.4");

        awaitClosed(silent1);
        assertTrue(silent1.closed.get(), "the oldest silent connection made room");
        assertFalse(newcomer.closed.get() || silent2.closed.get() || phone.closed.get());
        assertEquals(3, guard.openConnections());
        assertEquals(1, guard.madeRoom());
    }

    @Test
    void whenEveryConnectionHasSpokenTheNewcomerIsRefused() throws Exception {
        start(new ConnectionLimits(Duration.ofSeconds(60), Duration.ofSeconds(60), 2, 2));
        connectAndSpeak("127.0.0.2");
        connectAndSpeak("127.0.0.3");

        Peer newcomer = connect("127.0.0.4");

        awaitClosed(newcomer);
        assertTrue(newcomer.closed.get());
        assertEquals(1, guard.refused());
    }

    @Test
    void aConnectionWithoutAWholeMessageWithinTheDeadlineOfOpeningIsClosed() throws Exception {
        start(new ConnectionLimits(Duration.ofSeconds(60), Duration.ofMillis(200), 10, 10));
        Peer silent = connect("127.0.0.2");
        Peer phone = connectAndSpeak("127.0.0.3");

        awaitClosed(silent);

        assertTrue(silent.closed.get());
        assertFalse(phone.closed.get());
        assertEquals(1, guard.overdueClosed());
    }
}
