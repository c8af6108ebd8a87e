package org.p2psip.servlet.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Iterator;
import java.util.ListIterator;

import javax.sip.header.ViaHeader;
import javax.sip.message.Response;

import gov.nist.javax.sip.message.MessageFactoryImpl;
import org.junit.jupiter.api.Test;

/** RFC 7339 §5.2: a DHT admission's 503 answers the balancer's {@code oc} offer in the balancer's Via only. */
class DhtAdmissionOverloadOfferTest {

    private static Response refusal(String topVia) throws Exception {
        return new MessageFactoryImpl().createResponse("SIP/2.0 503 Location service overloaded\r\n"
                + "Via: " + topVia + "\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK-phone;oc\r\n"
                + "From: <sip:alice@example.test>;tag=1\r\n"
                + "To: <sip:alice@example.test>;tag=2\r\n"
                + "Call-ID: offer-1\r\n"
                + "CSeq: 1 REGISTER\r\n"
                + "Retry-After: 1\r\n"
                + "Content-Length: 0\r\n\r\n");
    }

    private static ViaHeader via(Response r, int index) {
        ListIterator<?> vias = r.getHeaders(ViaHeader.NAME);
        for (int i = 0; i < index; i++) {
            vias.next();
        }
        return (ViaHeader) vias.next();
    }

    /** {@code oc} present without a value. */
    private static boolean offers(ViaHeader via) {
        for (Iterator<?> names = via.getParameterNames(); names.hasNext(); ) {
            if ("oc".equals(names.next())) {
                String value = via.getParameter("oc");
                return value == null || value.isEmpty();
            }
        }
        return false;
    }

    @Test
    void theBalancersOfferIsAnsweredWithTheShareForOneSecond() throws Exception {
        Response r = refusal("SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK-lb;oc;oc-algo=\"loss\"");
        long before = System.currentTimeMillis();

        DhtAdmission.answerOverloadOffer(r, 30);

        ViaHeader top = via(r, 0);
        assertEquals("30", top.getParameter("oc"));
        assertEquals("1000", top.getParameter("oc-validity"));
        assertTrue(Long.parseLong(top.getParameter("oc-seq")) >= before, "oc-seq is the wall clock's milliseconds");
        assertTrue(offers(via(r, 1)), "only the top Via is answered");
    }

    @Test
    void noOfferNoAnswer() throws Exception {
        Response r = refusal("SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK-lb");

        DhtAdmission.answerOverloadOffer(r, 30);

        assertNull(via(r, 0).getParameter("oc"));
        assertNull(via(r, 0).getParameter("oc-validity"));
    }

    @Test
    void aShareOfNothingLeavesTheOfferUnanswered() throws Exception {
        Response r = refusal("SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK-lb;oc");

        DhtAdmission.answerOverloadOffer(r, 0);

        assertTrue(offers(via(r, 0)));
        assertNull(via(r, 0).getParameter("oc-seq"));
    }
}
