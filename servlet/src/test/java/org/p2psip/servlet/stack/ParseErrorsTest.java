package org.p2psip.servlet.stack;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class ParseErrorsTest {

    @Test
    void headerErrorsNameTheHeader() {
        assertEquals("Malformed CSeq header",
                ParseErrors.describe("CSeq: 36893488147419103232 REGISTER\n:Number format exception"));
        assertEquals("Malformed Content-Length header", ParseErrors.describe("l: -999\n:For input string"));
    }

    @Test
    void requestLineErrorsSaySo() {
        assertEquals("Malformed Request-Line",
                ParseErrors.describe("INVITE <sip:user@example.com> SIP/2.0\n:GenericURI, Bad URI format"));
    }

    @Test
    void arrayIdentitiesAndNewlinesNeverReachTheReasonPhrase() {
        String d = ParseErrors.describe("[C@7f6034ac\nID expected");

        assertFalse(d.contains("[C@") || d.contains("\n"), d);
        assertTrue(d.contains("ID expected"), d);
    }

    @Test
    void stackAnswersOnlyRequestsWithTheHeadersItCopies() {
        String full = "INVITE sip:a@b SIP/2.0\r\nv: SIP/2.0/UDP h\r\nCSeq: 1 INVITE\r\ni: x\r\nf: <sip:a@b>\r\nt: <sip:c@d>\r\n\r\n";
        assertTrue(ScreeningParser.stackAnswers(full.getBytes(StandardCharsets.ISO_8859_1)));
        String noCallId = full.replace("i: x\r\n", "");
        assertFalse(ScreeningParser.stackAnswers(noCallId.getBytes(StandardCharsets.ISO_8859_1)));
        String ack = full.replace("INVITE sip", "ACK sip");
        assertFalse(ScreeningParser.stackAnswers(ack.getBytes(StandardCharsets.ISO_8859_1)));
        assertFalse(ScreeningParser.stackAnswers("SIP/2.0 200 OK\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)));
    }

    @Test
    void versionIsReadFromTheRawRequestLine() {
        assertTrue(ScreeningParser.isSip20("OPTIONS sip:a@b SIP/2.0\r\n".getBytes(StandardCharsets.ISO_8859_1)));
        assertFalse(ScreeningParser.isSip20("OPTIONS sip:a@b SIP/7.0\r\n".getBytes(StandardCharsets.ISO_8859_1)));
    }
}
