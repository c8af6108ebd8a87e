package org.p2psip.servlet.stack;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class OverloadFeedbackTest {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void theBalancersOfferOnTheFirstViaIsAnswered() {
        String response = "SIP/2.0 503 Service Unavailable\r\n"
                + "Via: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bK-lb1;oc;oc-algo=\"loss\"\r\n"
                + "Via: SIP/2.0/UDP 192.0.2.9:5060;branch=z9hG4bK-ua;oc\r\n\r\n";
        String out = new String(OverloadFeedback.answerOffer(bytes(response), 35, 1_000, 7),
                StandardCharsets.ISO_8859_1);
        assertEquals("SIP/2.0 503 Service Unavailable\r\n"
                + "Via: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bK-lb1;oc=35;oc-validity=1000;oc-seq=7;oc-algo=\"loss\"\r\n"
                + "Via: SIP/2.0/UDP 192.0.2.9:5060;branch=z9hG4bK-ua;oc\r\n\r\n", out);
    }

    @Test
    void noOfferMeansNoChange() {
        byte[] response = bytes("SIP/2.0 503 Service Unavailable\r\nVia: SIP/2.0/UDP a;branch=z9hG4bK1\r\n"
                + "Via: SIP/2.0/UDP b;branch=z9hG4bK2;oc\r\n\r\n");
        assertArrayEquals(response, OverloadFeedback.answerOffer(response, 50, 1_000, 1));
    }

    @Test
    void anOcAlgoAloneIsNoOffer() {
        byte[] response = bytes("SIP/2.0 503 X\r\nVia: SIP/2.0/UDP a;branch=z9hG4bK1;oc-algo=\"loss\"\r\n\r\n");
        assertArrayEquals(response, OverloadFeedback.answerOffer(response, 50, 1_000, 1));
    }
}
