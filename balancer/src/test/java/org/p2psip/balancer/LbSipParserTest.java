package org.p2psip.balancer;

import org.p2psip.sip.wire.MalformedSipException;
import org.p2psip.sip.wire.SipFrame;
import org.p2psip.sip.wire.SipMessage;
import org.p2psip.sip.wire.SipParser;
import org.p2psip.sip.wire.Transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.netty.channel.embedded.EmbeddedChannel;

class LbSipParserTest {

    @Test
    void readsTheRoutingFieldsOfARequest() throws Exception {
        SipMessage m = SipParser.parse(LbText.udp(LbText.invite("c1@host", "z9hG4bKabc")));

        assertTrue(m.request());
        assertEquals("INVITE", m.method());
        assertEquals("sip:bob@example.com", m.requestUri());
        assertEquals("c1@host", m.callId());
        assertEquals("sip:bob@example.com", m.toUri());
        assertNull(m.toTag());
        assertEquals(1, m.cseqNumber());
        assertEquals(70, m.maxForwardsValue());
        assertEquals("z9hG4bKabc", m.topVia().branch());
        assertEquals("127.0.0.1", m.topVia().host());
        assertEquals(5070, m.topVia().port());
        assertEquals("UDP", m.topVia().transport());
        assertEquals(m.bytes().length, m.end());
    }

    @Test
    void understandsCompactFormsAndFoldedHeaders() throws Exception {
        String text = "BYE sip:bob@example.com SIP/2.0\n"
                + "v: SIP / 2.0 / TCP\n   10.0.0.1:5080\n\t;branch=z9hG4bKfold ;rport\n"
                + "f: <sip:alice@example.com>;tag=a\n"
                + "t: \"Bob\n  Smith\" <sip:bob@example.com>\n ;tag=b7\n"
                + "i: folded-call\n"
                + "CSeq: 2\n BYE\n"
                + "l: 0\n"
                + "\n";
        SipMessage m = SipParser.parse(LbText.udp(text));

        assertEquals("folded-call", m.callId());
        assertEquals("sip:bob@example.com", m.toUri());
        assertEquals("b7", m.toTag());
        assertEquals("10.0.0.1", m.topVia().host());
        assertEquals(5080, m.topVia().port());
        assertEquals("TCP", m.topVia().transport());
        assertEquals("z9hG4bKfold", m.topVia().branch());
        assertTrue(m.topVia().rport());
        assertEquals(2, m.cseqNumber());
        assertEquals(-1, m.maxForwardsValue());
    }

    @Test
    void readsAResponseAndItsCSeqMethod() throws Exception {
        String text = "SIP/2.0 180 Ringing\n"
                + "Via: SIP/2.0/UDP lb.example.com:5060;branch=z9hG4bKlbx.1;lb=u7f000001-13ce, SIP/2.0/UDP c:5070;branch=z9hG4bKc\n"
                + "From: <sip:a@x>;tag=1\nTo: <sip:b@x>;tag=2\nCall-ID: r\nCSeq: 4 INVITE\nContent-Length: 0\n\n";
        SipMessage m = SipParser.parse(LbText.udp(text));

        assertEquals(180, m.status());
        assertEquals("INVITE", m.method());
        assertEquals("u7f000001-13ce", m.topVia().params().get("lb"));
        assertTrue(m.topVia().nextStart() > 0, "a second via-parm follows in the same line");
        assertEquals('S', (char) m.bytes()[m.topVia().nextStart()]);
    }

    @Test
    void datagramBytesAfterContentLengthAreIgnored() throws Exception {
        String text = "OPTIONS sip:x@y SIP/2.0\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\nFrom: <sip:a@b>;tag=1\n"
                + "To: <sip:x@y>\nCall-ID: t\nCSeq: 1 OPTIONS\nContent-Length: 2\n\nabGARBAGE";
        SipMessage m = SipParser.parse(LbText.udp(text));

        assertEquals("ab", new String(m.bytes(), m.end() - 2, 2, StandardCharsets.UTF_8));
    }

    @Test
    void toParametersOfABareUriBelongToTheHeader() throws Exception {
        String text = LbText.invite("c", "z9hG4bK1").replace("To: <sip:bob@example.com>", "To: sip:bob@example.com;tag=zz");
        SipMessage m = SipParser.parse(LbText.udp(text));

        assertEquals("sip:bob@example.com", m.toUri());
        assertEquals("zz", m.toTag());
    }

    /** Each is broken in a way that must stop the balancer from forwarding it. */
    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "\n\n",
        "INVITE sip:bob@example.com SIP/2.0\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\n",
        "INVITE sip:bob@example.com SIP/3.0\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c>\nCall-ID: 1\nCSeq: 1 INVITE\n\n",
        "INVITE bob SIP/2.0\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c>\nCall-ID: 1\nCSeq: 1 INVITE\n\n",
        "INVITE sip:b@c SIP/2.0\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c>\nCall-ID: 1\nCSeq: 1 INVITE\n\n",
        "INVITE sip:b@c SIP/2.0\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c>\nCall-ID: 1\ni: 2\nCSeq: 1 INVITE\n\n",
        "INVITE sip:b@c SIP/2.0\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c>\nCall-ID: 1\nCSeq: 1 BYE\n\n",
        "INVITE sip:b@c SIP/2.0\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c>\nCall-ID: 1\nCSeq: 1 INVITE\nContent-Length: 50\n\nshort",
        "INVITE sip:b@c SIP/2.0\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c>\nCall-ID: 1\nCSeq: 1 INVITE\nContent-Length: -1\n\n",
        "INVITE sip:b@c SIP/2.0\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c>\nCall-ID: 1\nCSeq: 1 INVITE\nl: 0\nContent-Length: 0\n\n",
        "INVITE sip:b@c SIP/2.0\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c\nCall-ID: 1\nCSeq: 1 INVITE\n\n",
        "INVITE sip:b@c SIP/2.0\nVia: SIP/2.0/UDP\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c>\nCall-ID: 1\nCSeq: 1 INVITE\n\n",
        "INVITE sip:b@c SIP/2.0\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c>\nCall-ID: 1\nCSeq: 1 INVITE\nMax-Forwards: ten\n\n",
        "INVITE sip:b@c SIP/2.0\n  Via: SIP/2.0/UDP h;branch=z9hG4bK1\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c>\nCall-ID: 1\nCSeq: 1 INVITE\n\n",
        "INVITE sip:b@c SIP/2.0\nVia SIP/2.0/UDP h;branch=z9hG4bK1\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c>\nCall-ID: 1\nCSeq: 1 INVITE\n\n",
        "INVITE sip:b@c SIP/2.0\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c>\nCall-ID: 1 2\nCSeq: 1 INVITE\n\n",
        "SIP/2.0 20 OK\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c>\nCall-ID: 1\nCSeq: 1 INVITE\n\n",
        "SIP/2.0 999 Odd\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c>\nCall-ID: 1\nCSeq: 1 INVITE\n\n",
        "INVITE sip:b@c SIP/2.0\nVia: SIP/2.0/UDP h;branch=z9hG4bK1;branch=z9hG4bK2\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c>\nCall-ID: 1\nCSeq: 1 INVITE\n\n",
        "INVITE sip:b@c SIP/2.0\nVia: SIP/2.0/UDP h;branch=z9hG4bK1,\nFrom: <sip:a@b>;tag=1\nTo: <sip:b@c>\nCall-ID: 1\nCSeq: 1 INVITE\n\n",
    })
    void malformedMessagesAreRefused(String text) {
        assertThrows(MalformedSipException.class, () -> SipParser.parse(LbText.udp(text)));
    }

    @Test
    void controlCharactersAndBareCrAreRefused() {
        byte[] nul = LbText.crlf(LbText.invite("c", "z9hG4bK1"));
        nul[new String(nul, StandardCharsets.ISO_8859_1).indexOf("alice")] = 0;
        assertThrows(MalformedSipException.class,
                () -> SipParser.parse(new SipFrame(nul, LbText.CLIENT, Transport.UDP, 0)));

        byte[] bareCr = LbText.crlf(LbText.invite("c", "z9hG4bK1"));
        bareCr[new String(bareCr, StandardCharsets.ISO_8859_1).indexOf("alice")] = '\r';
        assertThrows(MalformedSipException.class,
                () -> SipParser.parse(new SipFrame(bareCr, LbText.CLIENT, Transport.UDP, 0)));
    }

    @Test
    void streamMessagesNeedContentLength() {
        String noLength = LbText.register("sip:a@b", "s1").replace("Content-Length: 0\n", "");
        assertThrows(MalformedSipException.class, () -> SipParser.parse(LbText.tcp(noLength, 1)));
    }

    @Test
    void parserHandlerForwardsGoodFramesAndCountsBadOnes() {
        BalancerCounters counters = new BalancerCounters();
        EmbeddedChannel ch = new EmbeddedChannel(new SipParserHandler(counters));

        ch.writeInbound(LbText.udp("garbage\n\n"));
        ch.writeInbound(LbText.udp(LbText.register("sip:a@b", "ok-1")));

        SipMessage m = ch.readInbound();
        assertEquals("ok-1", m.callId());
        assertNull(ch.readInbound());
        assertEquals(1, counters.malformed());
        ch.finishAndReleaseAll();
    }
}
