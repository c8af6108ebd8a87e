package org.p2psip.loadtest.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;

/** The parser and the Netty handlers, one job each, in EmbeddedChannel. */
class SipWireTest {

    static final String INVITE = "INVITE sip:callee@127.0.0.1:5060 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bKproxy;rport\r\n"
            + "v: SIP/2.0/UDP 127.0.0.1:40000;branch=z9hG4bKuac;received=127.0.0.1;rport=40001\r\n"
            + "Record-Route: <sip:127.0.0.1:5060;lr>, <sip:10.0.0.1;lr>\r\n"
            + "From: <sip:caller@127.0.0.1:5060>;tag=abc\r\n"
            + "t: <sip:callee@127.0.0.1:5060>\r\n"
            + "i: call-1\r\n"
            + "CSeq: 7\r\n INVITE\r\n"
            + "m: <sip:caller@127.0.0.1:40000>\r\n"
            + "l: 0\r\n\r\n";

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void parsesCompactFormsFoldedLinesAndHeaderLists() {
        SipMessage m = SipMessage.parse(bytes(INVITE));
        assertTrue(m.request());
        assertEquals("INVITE", m.method());
        assertEquals("sip:callee@127.0.0.1:5060", m.requestUri());
        assertEquals("call-1", m.callId());
        assertEquals(7, m.cseq());
        assertEquals(2, m.vias().size());
        assertEquals("z9hG4bKproxy", m.topBranch());
        assertEquals(List.of("<sip:127.0.0.1:5060;lr>", "<sip:10.0.0.1;lr>"), m.recordRoutes());
        assertNull(m.toTag());
        assertEquals("sip:caller@127.0.0.1:40000", m.contactUri());
    }

    @Test
    void parsesAResponseAndRejectsWhatCannotBeMatched() {
        SipMessage r = SipMessage.parse(bytes("SIP/2.0 486 Busy Here\r\nVia: SIP/2.0/UDP h;branch=z9hG4bKx\r\n"
                + "To: <sip:b@h>;tag=9\r\nCall-ID: c\r\nCSeq: 2 BYE\r\nContent-Length: 0\r\n\r\n"));
        assertFalse(r.request());
        assertEquals(486, r.status());
        assertEquals("BYE", r.method());
        assertEquals("9", r.toTag());
        assertThrows(IllegalArgumentException.class, () -> SipMessage.parse(bytes("SIP/2.0 200 OK\r\nCSeq: 1 X\r\n\r\n")));
        assertThrows(IllegalArgumentException.class, () -> SipMessage.parse(bytes("garbage\r\n\r\n")));
    }

    @Test
    void hopsAndResponseAddressesFollowRfc3263AndRfc3581() {
        assertEquals(new InetSocketAddress("127.0.0.1", 5070), FlowContext.hop("sip:u@127.0.0.1:5070;transport=tcp"));
        assertEquals(new InetSocketAddress("10.0.0.1", 5060), FlowContext.hop("sip:10.0.0.1;lr"));
        assertEquals(new InetSocketAddress("127.0.0.1", 40001),
                UasResponder.responseAddress("SIP/2.0/UDP 127.0.0.1:40000;branch=z;received=127.0.0.1;rport=40001", null));
        assertEquals(new InetSocketAddress("127.0.0.1", 40000),
                UasResponder.responseAddress("SIP/2.0/UDP 127.0.0.1:40000;branch=z;rport", null));
    }

    @Test
    void uasAnswersAnInviteWith180And200EchoingViasAndRecordRoute() {
        EmbeddedChannel ch = new EmbeddedChannel(new DatagramSipDecoder(new LongAdder()),
                new DatagramSipEncoder(null), new UasResponder(false));
        ch.writeInbound(new DatagramPacket(Unpooled.wrappedBuffer(bytes(INVITE)),
                new InetSocketAddress("127.0.0.1", 9), new InetSocketAddress("127.0.0.1", 5060)));
        DatagramPacket ringing = ch.readOutbound();
        DatagramPacket ok = ch.readOutbound();
        assertNull(ch.readOutbound());
        assertEquals(new InetSocketAddress("127.0.0.1", 5060), ok.recipient(), "to the top Via");
        SipMessage r180 = SipMessage.parse(content(ringing));
        SipMessage r200 = SipMessage.parse(content(ok));
        assertEquals(180, r180.status());
        assertEquals(200, r200.status());
        assertEquals(SipMessage.parse(bytes(INVITE)).vias(), r200.vias());
        assertEquals(List.of("<sip:127.0.0.1:5060;lr>", "<sip:10.0.0.1;lr>"), r200.recordRoutes());
        assertEquals(r180.toTag(), r200.toTag(), "one dialog, one tag");
        assertTrue(r200.contactUri().startsWith("sip:uas@"), r200.contactUri());
        assertEquals(7, r200.cseq());
        assertEquals("INVITE", r200.method());
    }

    @Test
    void uasIsSilentOnAckAndAnswersRegisterLikeARegistrar() {
        EmbeddedChannel ch = new EmbeddedChannel(new DatagramSipDecoder(new LongAdder()),
                new DatagramSipEncoder(null), new UasResponder(false));
        InetSocketAddress from = new InetSocketAddress("127.0.0.1", 9);
        ch.writeInbound(new DatagramPacket(Unpooled.wrappedBuffer(bytes(INVITE.replace("INVITE", "ACK"))),
                from, from));
        assertNull(ch.readOutbound());
        String register = "REGISTER sip:127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:7;branch=z9hG4bKr\r\n"
                + "From: <sip:a@127.0.0.1>;tag=1\r\nTo: <sip:a@127.0.0.1>\r\nCall-ID: r\r\nCSeq: 1 REGISTER\r\n"
                + "Contact: <sip:a@127.0.0.1:7>\r\nContent-Length: 0\r\n\r\n";
        ch.writeInbound(new DatagramPacket(Unpooled.wrappedBuffer(bytes(register)), from, from));
        DatagramPacket p = ch.readOutbound();
        String text = new String(content(p), StandardCharsets.UTF_8);
        assertTrue(text.startsWith("SIP/2.0 200 OK"), text);
        assertTrue(text.contains("Contact: <sip:a@127.0.0.1:7>;expires=3600"), text);
        assertTrue(text.contains("\r\nDate: "), text);
    }

    @Test
    void streamDecoderFramesByContentLengthAcrossArbitrarySplits() {
        String body = "hello";
        String msg = "MESSAGE sip:a@h SIP/2.0\r\nVia: SIP/2.0/TCP h;branch=z9hG4bK1\r\nCall-ID: s\r\n"
                + "CSeq: 1 MESSAGE\r\nContent-Length: 5\r\n\r\n" + body;
        byte[] all = bytes("\r\n" + msg + msg);
        EmbeddedChannel ch = new EmbeddedChannel(new SipStreamDecoder());
        for (int i = 0; i < all.length; i += 7) {
            ch.writeInbound(Unpooled.wrappedBuffer(all, i, Math.min(7, all.length - i)));
        }
        Inbound first = ch.readInbound();
        Inbound second = ch.readInbound();
        assertNull(ch.readInbound());
        assertEquals("hello", new String(first.message().body(), StandardCharsets.UTF_8));
        assertEquals("s", second.message().callId());
    }

    @Test
    void streamDecoderClosesOnAMessageWithoutContentLength() {
        EmbeddedChannel ch = new EmbeddedChannel(new SipStreamDecoder());
        assertThrows(Exception.class, () -> ch.writeInbound(Unpooled.wrappedBuffer(
                bytes("OPTIONS sip:a@h SIP/2.0\r\nVia: SIP/2.0/TCP h;branch=z9hG4bK1\r\nCall-ID: s\r\nCSeq: 1 OPTIONS\r\n\r\n"))));
    }

    private static byte[] content(DatagramPacket p) {
        ByteBuf b = p.content();
        byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        p.release();
        return out;
    }
}
