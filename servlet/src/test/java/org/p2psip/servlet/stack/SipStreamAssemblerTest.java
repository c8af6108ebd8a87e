package org.p2psip.servlet.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.p2psip.servlet.stack.SipStreamAssembler.Piece;

class SipStreamAssemblerTest {

    private static final String HEAD = "OPTIONS sip:n@example.com SIP/2.0\r\nVia: SIP/2.0/TCP h;branch=z9hG4bK1\r\n";

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String text(Piece p) {
        return new String(((Piece.Message) p).bytes(), StandardCharsets.ISO_8859_1);
    }

    @Test
    void pipelinedMessagesAreCutAtTheirContentLength() {
        SipStreamAssembler a = new SipStreamAssembler(10_000);
        String one = HEAD + "Content-Length: 3\r\n\r\nabc";
        String two = HEAD + "l: 0\r\n\r\n";
        List<Piece> out = a.feed(bytes(one + two));
        assertEquals(2, out.size());
        assertEquals(one, text(out.get(0)));
        assertEquals(two, text(out.get(1)));
        assertFalse(a.partial());
    }

    @Test
    void aMessageArrivingInPiecesIsPassedOnOnceWhole() {
        SipStreamAssembler a = new SipStreamAssembler(10_000);
        String m = HEAD + "Content-Length: 5\r\n\r\nhello";
        for (int i = 0; i < m.length() - 1; i++) {
            assertTrue(a.feed(bytes(m.substring(i, i + 1))).isEmpty());
            assertTrue(a.partial());
        }
        List<Piece> out = a.feed(bytes(m.substring(m.length() - 1)));
        assertEquals(m, text(out.get(0)));
        assertFalse(a.partial());
    }

    @Test
    void keepAlivesBetweenMessagesPassThrough() {
        SipStreamAssembler a = new SipStreamAssembler(10_000);
        List<Piece> out = a.feed(bytes("\r\n\r\n" + HEAD + "Content-Length: 0\r\n\r\n"));
        assertInstanceOf(Piece.KeepAlive.class, out.get(0));
        assertInstanceOf(Piece.Message.class, out.get(1));
    }

    @Test
    void aBodyAnnouncedPastTheLimitEndsTheStreamWithoutWaitingForIt() {
        SipStreamAssembler a = new SipStreamAssembler(10_000);
        List<Piece> out = a.feed(bytes(HEAD + "Content-Length: 2000000000\r\n\r\n"));
        Piece.TooLarge tooLarge = assertInstanceOf(Piece.TooLarge.class, out.get(0));
        assertTrue(new String(tooLarge.head(), StandardCharsets.ISO_8859_1).startsWith("OPTIONS "));
        assertTrue(a.ended());
        assertTrue(a.feed(bytes("more")).isEmpty());
    }

    @Test
    void aHeaderSectionPastTheLimitEndsTheStream() {
        SipStreamAssembler a = new SipStreamAssembler(2_000);
        List<Piece> out = a.feed(bytes(HEAD + "X-Long: " + "y".repeat(5_000)));
        Piece.TooLarge tooLarge = assertInstanceOf(Piece.TooLarge.class, out.get(0));
        assertEquals(2_000, tooLarge.head().length);
    }

    @Test
    void conflictingContentLengthsAreMalformed() {
        SipStreamAssembler a = new SipStreamAssembler(10_000);
        List<Piece> out = a.feed(bytes(HEAD + "Content-Length: 1\r\nl: 2\r\n\r\nab"));
        assertInstanceOf(Piece.Malformed.class, out.get(0));
    }

    @Test
    void aNonNumericContentLengthIsMalformed() {
        SipStreamAssembler a = new SipStreamAssembler(10_000);
        assertInstanceOf(Piece.Malformed.class, a.feed(bytes(HEAD + "Content-Length: -5\r\n\r\n")).get(0));
    }
}
