package org.p2psip.balancer;

import org.p2psip.sip.wire.SipFrame;
import org.p2psip.sip.wire.Transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;

import org.junit.jupiter.api.Test;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;

class LbFramingTest {

    private final BalancerCounters counters = new BalancerCounters();

    @Test
    void aDatagramIsOneFrameAndKeepAlivesVanish() {
        EmbeddedChannel ch = new EmbeddedChannel(LbText.datagrams(65_535, counters));
        InetSocketAddress recipient = new InetSocketAddress("127.0.0.1", 5060);
        byte[] register = LbText.crlf(LbText.register("sip:a@b", "d1"));

        ch.writeInbound(new DatagramPacket(Unpooled.wrappedBuffer(LbText.crlf("\n\n")), recipient, LbText.CLIENT));
        ch.writeInbound(new DatagramPacket(Unpooled.wrappedBuffer(register), recipient, LbText.CLIENT));

        SipFrame frame = ch.readInbound();
        assertArrayEquals(register, frame.bytes());
        assertEquals(LbText.CLIENT, frame.sender());
        assertEquals(Transport.UDP, frame.transport());
        assertNull(ch.readInbound(), "the keep-alive made no frame");
        assertFalse(ch.finish());
    }

    @Test
    void streamIsCutByContentLengthAcrossAndWithinReads() {
        EmbeddedChannel ch = LbText.tcpChannel(LbText.framer(65_535, counters));
        byte[] first = LbText.crlf(LbText.invite("s1", "z9hG4bK1"));
        byte[] second = LbText.crlf(LbText.register("sip:a@b", "s2"));
        byte[] both = new byte[first.length + 4 + second.length];
        System.arraycopy(first, 0, both, 0, first.length);
        both[first.length] = '\r';
        both[first.length + 1] = '\n';
        both[first.length + 2] = '\r';
        both[first.length + 3] = '\n';
        System.arraycopy(second, 0, both, first.length + 4, second.length);

        // Fed in awkward pieces: mid-header, mid-body, keep-alive CRLFs between the messages.
        int[] cuts = {7, first.length - 2, first.length + 1, first.length + 30, both.length};
        int from = 0;
        for (int cut : cuts) {
            ch.writeInbound(Unpooled.copiedBuffer(both, from, cut - from));
            from = cut;
        }

        SipFrame a = ch.readInbound();
        SipFrame b = ch.readInbound();
        assertArrayEquals(first, a.bytes());
        assertArrayEquals(second, b.bytes());
        assertEquals(Transport.TCP, a.transport());
        assertNull(ch.readInbound());
        assertTrue(ch.isOpen());
        assertEquals(0, counters.streamsClosed());
        ch.finishAndReleaseAll();
    }

    @Test
    void streamWithoutContentLengthIsClosed() {
        EmbeddedChannel ch = LbText.tcpChannel(LbText.framer(65_535, counters));
        String noLength = LbText.register("sip:a@b", "n1").replace("Content-Length: 0\n", "");

        ch.writeInbound(Unpooled.wrappedBuffer(LbText.crlf(noLength + LbText.register("sip:a@b", "n2"))));

        assertNull(ch.readInbound(), "nothing after the break is forwarded");
        assertFalse(ch.isOpen());
        assertEquals(1, counters.streamsClosed());
    }

    @Test
    void repeatedOrNonNumericContentLengthCloses() {
        for (String bad : new String[] {"Content-Length: 0\nl: 0\n", "Content-Length: 1x\n"}) {
            EmbeddedChannel ch = LbText.tcpChannel(LbText.framer(65_535, counters));
            ch.writeInbound(Unpooled.wrappedBuffer(LbText.crlf(
                    LbText.register("sip:a@b", "r").replace("Content-Length: 0\n", bad))));
            assertNull(ch.readInbound());
            assertFalse(ch.isOpen(), bad);
        }
        assertEquals(2, counters.streamsClosed());
    }

    @Test
    void oversizedHeadersOrBodyClose() {
        EmbeddedChannel endless = LbText.tcpChannel(LbText.framer(2048, counters));
        endless.writeInbound(Unpooled.wrappedBuffer(LbText.crlf("INVITE sip:b@c SIP/2.0\nX: " + "y".repeat(3000))));
        assertFalse(endless.isOpen(), "no end of headers within the limit");

        EmbeddedChannel huge = LbText.tcpChannel(LbText.framer(2048, counters));
        huge.writeInbound(Unpooled.wrappedBuffer(LbText.crlf(
                LbText.register("sip:a@b", "h").replace("Content-Length: 0", "Content-Length: 100000"))));
        assertFalse(huge.isOpen(), "a declared body beyond the limit");
        assertNull(huge.readInbound());
        assertEquals(2, counters.streamsClosed());
    }

    @Test
    void tcpConnectionsNameEachConnection() {
        TcpConnections connections = new TcpConnections();
        EmbeddedChannel ch = LbText.tcpChannel(connections, LbText.framer(65_535, counters));

        long id = ch.attr(TcpConnections.ID).get();
        assertTrue(connections.lookup(id).isPresent());
        ch.writeInbound(Unpooled.wrappedBuffer(LbText.crlf(LbText.register("sip:a@b", "t1"))));
        SipFrame frame = ch.readInbound();
        assertEquals(id, frame.connection());

        ch.close();
        assertTrue(connections.lookup(id).isEmpty());
        assertEquals(0, connections.size());
    }
}
