package org.p2psip.core.guard;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class ToTagScanTest {

    private static boolean scan(String... headers) {
        String message = "BYE sip:bob@127.0.0.1:5070 SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK-1\r\n"
                + String.join("\r\n", headers) + "\r\n"
                + "Call-ID: c1\r\nCSeq: 2 BYE\r\nContent-Length: 4\r\n\r\nTo: ;tag=body";
        byte[] bytes = message.getBytes(StandardCharsets.US_ASCII);
        return ToTagScan.carriesToTag(bytes, bytes.length);
    }

    @Test
    void aTagAfterTheNameAddrMarksADialog() {
        assertTrue(scan("From: <sip:alice@p2psip.test>;tag=a1", "To: \"Bob\" <sip:bob@p2psip.test>;tag=b2"));
    }

    @Test
    void aTagOnABareAddrSpecIsAHeaderParameter() {
        assertTrue(scan("To: sip:bob@p2psip.test ; TAG = b2"));
    }

    @Test
    void theCompactFormAndAnyCaseCount() {
        assertTrue(scan("t :<sip:bob@p2psip.test>;tag=b2"));
        assertTrue(scan("TO: <sip:bob@p2psip.test>;Tag=b2"));
    }

    @Test
    void aToWithoutTagIsOutsideADialog() {
        assertFalse(scan("From: <sip:alice@p2psip.test>;tag=a1", "To: <sip:bob@p2psip.test>"));
    }

    @Test
    void aTagInsideTheBracketsOrTheDisplayNameIsNotOne() {
        assertFalse(scan("To: <sip:bob@p2psip.test;tag=uri>"));
        assertFalse(scan("To: \"Bob \\\";tag=x\" <sip:bob@p2psip.test>"));
    }

    @Test
    void aFoldedToValueIsReadOnItsNextLine() {
        assertTrue(scan("To: <sip:bob@p2psip.test>\r\n ;tag=b2"));
        assertFalse(scan("To: <sip:bob@p2psip.test>", "X-Note: ;tag=elsewhere"));
    }

    @Test
    void otherHeadersStartingWithTAreNotTo() {
        assertFalse(scan("Timestamp: 1 ;tag=x", "To: <sip:bob@p2psip.test>"));
        assertFalse(scan("Tox: ;tag=x", "To: <sip:bob@p2psip.test>"));
    }

    @Test
    void theBodyIsNotTheHeaderSection() {
        byte[] bytes = "BYE sip:b@h SIP/2.0\r\nCall-ID: c\r\n\r\nTo: <sip:b@h>;tag=1".getBytes(StandardCharsets.US_ASCII);
        assertFalse(ToTagScan.carriesToTag(bytes, bytes.length));
    }

    @Test
    void onlyTheGivenLengthIsRead() {
        byte[] bytes = "BYE sip:b@h SIP/2.0\r\nTo: <sip:b@h>;tag=1\r\n".getBytes(StandardCharsets.US_ASCII);
        assertFalse(ToTagScan.carriesToTag(bytes, 30));
        assertFalse(ToTagScan.carriesToTag(new byte[0], 0));
    }
}
