package org.p2psip.balancer;

import org.p2psip.sip.wire.ConnectionLimits;
import org.p2psip.sip.wire.FrameLimits;
import org.p2psip.sip.wire.SipFrame;
import org.p2psip.sip.wire.Transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.p2psip.core.guard.CredentialFreeBudget;
import org.p2psip.core.guard.SourceGuard;
import org.p2psip.core.guard.SourceLimits;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;

/** The balancer's defensive handlers, one at a time, in EmbeddedChannels. */
class LbEdgeHandlersTest {

    private static final InetSocketAddress FLOODER = new InetSocketAddress("127.0.0.2", 5070);
    private static final InetSocketAddress OTHER = new InetSocketAddress("127.0.0.3", 5070);
    private static final InetSocketAddress NODE = new InetSocketAddress("127.0.0.1", 5061);
    private static final InetSocketAddress LB = new InetSocketAddress("127.0.0.1", 5060);

    private final BalancerCounters counters = new BalancerCounters();
    private final BadInputReporter bad = BadInputReporter.standard();

    private static SourceGuard guard(int rate, int burst, InetAddress... trusted) {
        return new SourceGuard(new SourceLimits(rate, burst, Duration.ofSeconds(30), 100), Set.of(trusted));
    }

    private static DatagramPacket datagram(String text, InetSocketAddress from) {
        return new DatagramPacket(Unpooled.wrappedBuffer(LbText.crlf(text)), LB, from);
    }

    /** A connection from {@code remote}, as a real accepted socket would have it. */
    private static EmbeddedChannel connection(InetSocketAddress remote, ChannelHandler... handlers) {
        return new EmbeddedChannel(handlers) {
            @Override
            protected SocketAddress remoteAddress0() {
                return remote;
            }
        };
    }

    @Test
    void datagramsFromABannedSourceAreDroppedWhileOthersAndTheNodesPass() {
        EmbeddedChannel ch = new EmbeddedChannel(new SourceGuardHandler(guard(1, 2, NODE.getAddress()), counters,
                bad));

        for (int i = 0; i < 4; i++) {
            ch.writeInbound(datagram(LbText.register("sip:a@b", "f" + i), FLOODER));
        }
        ch.writeInbound(datagram(LbText.register("sip:a@b", "o1"), OTHER));
        for (int i = 0; i < 10; i++) {
            ch.writeInbound(datagram(LbText.register("sip:a@b", "n" + i), NODE));
        }

        int passed = 0;
        for (DatagramPacket p; (p = ch.readInbound()) != null; ) {
            passed++;
            p.release();
        }
        assertEquals(2 + 1 + 10, passed, "the burst of 2, the other source, every trusted datagram");
        assertEquals(2, counters.sourceDropped());
        assertTrue(ch.isOpen(), "the shared UDP socket is never closed");
    }

    @Test
    void requestsWithoutCredentialsFromAllSourcesShareOneBudgetAndNothingElseIsHeld() {
        CredentialFreeBudgetHandler budget = new CredentialFreeBudgetHandler(new CredentialFreeBudget(1, 3,
                System.nanoTime()), counters);
        EmbeddedChannel ch = new EmbeddedChannel(budget);
        for (int i = 0; i < 5; i++) {
            ch.writeInbound(datagram(LbText.register("sip:a" + i + "@example.com", "f" + i), FLOODER));
            ch.writeInbound(datagram(LbText.register("sip:b" + i + "@example.com", "o" + i), OTHER));
        }
        String withCredentials = LbText.register("sip:alice@example.com", "c1").replace("Content-Length: 0\n",
                "Authorization: Digest username=\"alice\", realm=\"example.com\"\nContent-Length: 0\n");
        ch.writeInbound(datagram(withCredentials, OTHER));
        ch.writeInbound(datagram("OPTIONS sip:example.com SIP/2.0\nCall-ID: k1\n\n", OTHER));
        ch.writeInbound(datagram("SIP/2.0 200 OK\nCall-ID: r1\nCSeq: 1 REGISTER\n\n", NODE));

        int passed = 0;
        for (DatagramPacket p; (p = ch.readInbound()) != null; ) {
            passed++;
            p.release();
        }
        assertEquals(3 + 3, passed, "the burst of 3 from both sources together, then credentials, OPTIONS, a response");
        assertEquals(7, budget.dropped());
        assertEquals(7, counters.overBudget(), "counted for the metrics");
    }

    @Test
    void messagesFramedFromConnectionsDrawOnTheSameBudget() {
        BalancerCounters counted = new BalancerCounters();
        CredentialFreeBudgetHandler budget = new CredentialFreeBudgetHandler(new CredentialFreeBudget(1, 2,
                System.nanoTime()), counted);
        EmbeddedChannel udp = new EmbeddedChannel(budget);
        EmbeddedChannel tcp = connection(FLOODER, budget);
        udp.writeInbound(datagram(LbText.register("sip:a0@example.com", "u0"), FLOODER));
        for (int i = 0; i < 3; i++) {
            tcp.writeInbound(new SipFrame(LbText.crlf(LbText.register("sip:t" + i + "@example.com", "t" + i)),
                    OTHER, Transport.TCP, 1));
        }
        tcp.writeInbound(new SipFrame(LbText.crlf("OPTIONS sip:example.com SIP/2.0\nCall-ID: k2\n\n"), OTHER,
                Transport.TCP, 1));

        int passed = 0;
        for (Object m; (m = tcp.readInbound()) != null; ) {
            passed++;
        }
        assertEquals(1 + 1, passed, "one REGISTER left of the burst of 2 after the datagram, then the OPTIONS");
        assertEquals(2, counted.overBudget());
        assertTrue(tcp.isOpen(), "the connection stays open");
        ((DatagramPacket) udp.readInbound()).release();
    }

    @Test
    void aBannedSourcesConnectionIsClosed() {
        EmbeddedChannel ch = connection(FLOODER, new SourceGuardHandler(guard(1, 1), counters, bad));

        ch.writeInbound(new SipFrame(LbText.crlf(LbText.register("sip:a@b", "t1")), FLOODER, Transport.TCP, 1));
        assertNotNull(ch.readInbound());
        ch.writeInbound(new SipFrame(LbText.crlf(LbText.register("sip:a@b", "t2")), FLOODER, Transport.TCP, 1));

        assertNull(ch.readInbound());
        assertFalse(ch.isOpen());
    }

    @Test
    void connectionsOverThePerSourceOrTotalCapAreClosedOnAccept() {
        ConnectionGate gate = new ConnectionGate(new ConnectionLimits(Duration.ofSeconds(1), Duration.ofSeconds(1), 3,
                2), SourceGuard.off(), counters, bad);

        EmbeddedChannel a1 = connection(FLOODER, gate);
        EmbeddedChannel a2 = connection(FLOODER, gate);
        EmbeddedChannel a3 = connection(FLOODER, gate);
        assertTrue(a1.isOpen() && a2.isOpen());
        assertFalse(a3.isOpen(), "third from one source, cap 2");
        EmbeddedChannel b1 = connection(OTHER, gate);
        assertTrue(b1.isOpen(), "another source still connects");
        gate.spoke(a1);
        gate.spoke(a2);
        gate.spoke(b1);
        EmbeddedChannel c1 = connection(new InetSocketAddress("127.0.0.4", 1), gate);
        assertFalse(c1.isOpen(), "fourth in all, cap 3, and every open one has spoken");
        assertEquals(2, counters.connectionsRefused());

        a1.close();
        assertEquals(1, gate.open(FLOODER.getAddress()));
        assertTrue(connection(FLOODER, gate).isOpen(), "a closed connection frees its place");
        assertEquals(3, gate.open());
    }

    @Test
    void whenTheTableIsFullTheOldestConnectionThatNeverSpokeMakesRoom() {
        ConnectionGate gate = new ConnectionGate(new ConnectionLimits(Duration.ofSeconds(1), Duration.ofSeconds(1), 3,
                2), SourceGuard.off(), counters, bad);
        EmbeddedChannel phone = connection(OTHER, gate);
        gate.spoke(phone);
        EmbeddedChannel silent1 = connection(FLOODER, gate);
        EmbeddedChannel silent2 = connection(FLOODER, gate);

        EmbeddedChannel newcomer = connection(new InetSocketAddress("127.0.0.4", 1), gate);

        assertTrue(newcomer.isOpen(), "a new client gets a place");
        assertFalse(silent1.isOpen(), "the oldest silent connection made room");
        assertTrue(silent2.isOpen() && phone.isOpen(), "the others stay, the one that spoke above all");
        assertEquals(3, gate.open());
        assertEquals(1, counters.madeRoom());
        assertEquals(0, counters.connectionsRefused());
    }

    @Test
    void aNetworkAtItsCapMakesRoomFromItsOwnSilentConnectionsOnly() {
        ConnectionGate gate = new ConnectionGate(new ConnectionLimits(Duration.ofSeconds(1), Duration.ofSeconds(1),
                100, 2, 3), SourceGuard.off(), counters, bad);
        EmbeddedChannel elsewhere = connection(new InetSocketAddress("192.0.2.7", 1), gate);
        EmbeddedChannel n1 = connection(new InetSocketAddress("127.0.0.1", 1), gate);
        EmbeddedChannel n2 = connection(new InetSocketAddress("127.0.0.2", 1), gate);
        EmbeddedChannel n3 = connection(new InetSocketAddress("127.0.0.3", 1), gate);
        gate.spoke(n2);
        gate.spoke(n3);

        EmbeddedChannel n4 = connection(new InetSocketAddress("127.0.0.4", 1), gate);
        assertTrue(n4.isOpen());
        assertFalse(n1.isOpen(), "its own network's oldest silent connection made room");
        assertTrue(elsewhere.isOpen(), "an older silent connection of another network did not");

        gate.spoke(n4);
        EmbeddedChannel n5 = connection(new InetSocketAddress("127.0.0.5", 1), gate);
        assertFalse(n5.isOpen(), "three open in the /24, each has spoken");
        assertEquals(1, counters.connectionsRefused());
    }

    @Test
    void aConnectionThatSendsNoWholeMessageWithinTheDeadlineOfConnectingIsClosed() throws Exception {
        java.util.List<io.netty.channel.Channel> spoke = new java.util.ArrayList<>();
        EmbeddedChannel quiet = LbText.tcpChannel(new SipStreamFramer(65_535, Duration.ofMillis(50).toNanos(),
                Transport.TCP, new LocalAnswers(LbText.LB), counters, bad, spoke::add));
        EmbeddedChannel talker = LbText.tcpChannel(new SipStreamFramer(65_535, Duration.ofMillis(50).toNanos(),
                Transport.TCP, new LocalAnswers(LbText.LB), counters, bad, spoke::add));
        talker.writeInbound(Unpooled.wrappedBuffer(LbText.crlf(LbText.register("sip:a@b", "t1"))));
        quiet.writeInbound(Unpooled.wrappedBuffer(new byte[] {'\r', '\n', '\r', '\n'}));

        Thread.sleep(120);
        quiet.runScheduledPendingTasks();
        talker.runScheduledPendingTasks();

        assertFalse(quiet.isOpen(), "keep-alives alone are no message");
        assertTrue(talker.isOpen());
        assertEquals(java.util.List.of(talker), spoke);
        assertEquals(1, counters.deadlineClosed());
    }

    @Test
    void aDoubleCrlfPingGetsACrlfPongAndCountsAsNoMessage() {
        EmbeddedChannel ch = LbText.tcpChannel(LbText.framer(65_535, counters));

        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {'\r', '\n'}));
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {'\r', '\n', '\r'}));
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {'\n', '\r', '\n'}));

        assertEquals("\r\n", LbText.text(ch.readOutbound()), "one pong for the ping split across reads");
        assertEquals("\r\n", LbText.text(ch.readOutbound()), "and one for the ping after it");
        assertNull(ch.readOutbound());
        assertNull(ch.readInbound());
        assertEquals(2, counters.pongs());
        assertTrue(ch.isOpen());
    }

    @Test
    void aDeclaredBodyOverTheLimitGets513AndTheConnectionCloses() {
        EmbeddedChannel ch = LbText.tcpChannel(LbText.framer(2048, counters));

        ch.writeInbound(Unpooled.wrappedBuffer(LbText.crlf(
                LbText.register("sip:a@b", "big").replace("Content-Length: 0", "Content-Length: 100000"))));

        String answer = LbText.text(ch.readOutbound());
        assertTrue(answer.startsWith("SIP/2.0 513 Message Too Large\r\n"), answer);
        assertTrue(answer.contains("Call-ID: big\r\n") && answer.contains(";tag=" + LbText.LB.tagPrefix()), answer);
        assertNull(ch.readInbound());
        assertFalse(ch.isOpen());
        assertEquals(1, counters.refusedOversized());
    }

    @Test
    void headersThatDoNotEndWithinTheLimitGet513FromTheLinesThatArrived() {
        EmbeddedChannel ch = LbText.tcpChannel(LbText.framer(2048, counters));
        String manyHeaders = LbText.register("sip:a@b", "endless").replace("Content-Length: 0\n\n", "");
        StringBuilder flood = new StringBuilder(manyHeaders);
        for (int i = 0; flood.length() < 3000; i++) {
            flood.append("X-Filler-").append(i).append(": ").append("f".repeat(40)).append('\n');
        }

        ch.writeInbound(Unpooled.wrappedBuffer(LbText.crlf(flood.toString())));

        String answer = LbText.text(ch.readOutbound());
        assertTrue(answer.startsWith("SIP/2.0 513 "), answer);
        assertTrue(answer.contains("Call-ID: endless"), answer);
        assertFalse(ch.isOpen());
    }

    @Test
    void anOverlongHeaderLineGets400AndTheConnectionCloses() {
        EmbeddedChannel ch = LbText.tcpChannel(LbText.framer(65_535, counters));

        ch.writeInbound(Unpooled.wrappedBuffer(LbText.crlf(LbText.register("sip:a@b", "longline")
                .replace("Content-Length: 0", "Subject: " + "s".repeat(FrameLimits.MAX_HEADER_LINE_BYTES)
                        + "\nContent-Length: 0"))));

        String answer = LbText.text(ch.readOutbound());
        assertTrue(answer.startsWith("SIP/2.0 400 "), answer);
        assertNull(ch.readInbound());
        assertFalse(ch.isOpen());
    }

    @Test
    void garbageOverTheLimitIsClosedUnanswered() {
        EmbeddedChannel ch = LbText.tcpChannel(LbText.framer(2048, counters));

        ch.writeInbound(Unpooled.wrappedBuffer(new byte[4096]));

        assertNull(ch.readOutbound());
        assertFalse(ch.isOpen());
        assertEquals(1, counters.streamsClosed());
    }

    @Test
    void aMessageUnfinishedAtTheDeadlineClosesTheConnection() {
        EmbeddedChannel ch = LbText.tcpChannel(LbText.framer(65_535, Duration.ofSeconds(10), counters));
        ch.freezeTime();
        byte[] whole = LbText.crlf(LbText.invite("slow", "z9hG4bKslow"));

        ch.writeInbound(Unpooled.wrappedBuffer(whole, 0, 40));
        ch.advanceTimeBy(9, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertTrue(ch.isOpen(), "within the deadline");
        ch.writeInbound(Unpooled.wrappedBuffer(whole, 40, 20));
        ch.advanceTimeBy(2, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();

        assertFalse(ch.isOpen(), "the deadline counts from the message's first byte, not its last");
        assertEquals(1, counters.deadlineClosed());
    }

    @Test
    void aMessageFinishedInTimeCancelsItsDeadline() {
        EmbeddedChannel ch = LbText.tcpChannel(LbText.framer(65_535, Duration.ofSeconds(10), counters));
        ch.freezeTime();
        byte[] whole = LbText.crlf(LbText.invite("ontime", "z9hG4bKontime"));

        ch.writeInbound(Unpooled.wrappedBuffer(whole, 0, 40));
        ch.advanceTimeBy(9, TimeUnit.SECONDS);
        ch.writeInbound(Unpooled.wrappedBuffer(whole, 40, whole.length - 40));
        assertNotNull(ch.readInbound());
        ch.advanceTimeBy(60, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();

        assertTrue(ch.isOpen());
        assertEquals(0, counters.deadlineClosed());
    }

    @Test
    void aDatagramOverTheLimitGets513WhereItsResponseWouldGo() {
        EmbeddedChannel ch = new EmbeddedChannel(LbText.datagrams(2048, counters));
        String big = LbText.invite("bigdatagram", "z9hG4bKbig").replace("Content-Length: 5\n\nv=0\n",
                "Content-Length: 3000\n\n" + "v".repeat(3000));

        ch.writeInbound(datagram(big, FLOODER));

        assertNull(ch.readInbound());
        DatagramPacket answer = ch.readOutbound();
        assertEquals(new InetSocketAddress("127.0.0.2", 5070), answer.recipient());
        ByteBuf content = answer.content();
        String text = LbText.text(content);
        assertTrue(text.startsWith("SIP/2.0 513 Message Too Large\r\n"), text);
        assertEquals(1, counters.refusedOversized());
    }

    @Test
    void anOversizedAckIsDroppedUnanswered() {
        EmbeddedChannel ch = new EmbeddedChannel(LbText.datagrams(2048, counters));
        String ack = LbText.invite("bigack", "z9hG4bKack").replace("INVITE sip", "ACK sip")
                .replace("1 INVITE", "1 ACK").replace("Content-Length: 5\n\nv=0\n", "Content-Length: 3000\n\n"
                        + "v".repeat(3000));

        ch.writeInbound(datagram(ack, FLOODER));

        assertNull(ch.readInbound());
        assertNull(ch.readOutbound());
    }
}
