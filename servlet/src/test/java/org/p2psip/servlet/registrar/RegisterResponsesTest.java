package org.p2psip.servlet.registrar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

import javax.sip.header.ContactHeader;
import javax.sip.header.DateHeader;
import javax.sip.header.Header;
import javax.sip.header.MinExpiresHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;

import org.junit.jupiter.api.Test;
import org.p2psip.core.location.Binding;
import org.p2psip.core.location.BindingSet;
import org.p2psip.core.location.RegisterOutcome.Accepted;
import org.p2psip.core.location.RegisterOutcome.Rejected;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.sip.HeaderLists;
import org.p2psip.servlet.testing.Messages;
import org.p2psip.core.testing.RequestText;

class RegisterResponsesTest {

    private static final Instant NOW = Instant.parse("2024-05-01T12:00:00Z");
    private final RegisterResponses responses = new RegisterResponses(Messages.endpoint());

    private static Request register() throws Exception {
        return Messages.request(RequestText.standard("REGISTER", "sip:example.com", "192.0.2.1:5062",
                "sip:alice@example.com", "sip:alice@example.com", "call-1", 1));
    }

    private static Binding binding(String contact, int q, long secondsLeft, Map<String, String> params) {
        return new Binding(contact, params, NOW.plusSeconds(secondsLeft), q, "call-1", 1, Optional.empty(),
                OptionalInt.empty(), List.of(), new HostPort("192.0.2.1", 5062), "UDP");
    }

    private static List<ContactHeader> contacts(Response r) {
        List<ContactHeader> out = new ArrayList<>();
        for (Header h : HeaderLists.of(r, ContactHeader.NAME)) {
            out.add((ContactHeader) h);
        }
        return out;
    }

    @Test
    void okListsEveryBindingWithItsRemainingExpiresAndQ() throws Exception {
        BindingSet set = new BindingSet(List.of(
                binding("sip:alice@192.0.2.1:5062", 500, 1800, Map.of()),
                binding("sip:alice@192.0.2.9", Binding.Q_UNSPECIFIED, 61, Map.of())));

        Response r = responses.toResponse(register(), new Accepted(set, true), NOW, false);

        assertEquals(200, r.getStatusCode());
        List<ContactHeader> contacts = contacts(r);
        assertEquals(2, contacts.size());
        ContactHeader withQ = contacts.stream().filter(c -> c.getQValue() >= 0).findFirst().orElseThrow();
        assertEquals(0.5f, withQ.getQValue());
        assertEquals(1800, withQ.getExpires());
        ContactHeader withoutQ = contacts.stream().filter(c -> c.getQValue() < 0).findFirst().orElseThrow();
        assertEquals(61, withoutQ.getExpires());
    }

    @Test
    void okCarriesDateAndTagsTo() throws Exception {
        Response r = responses.toResponse(register(), new Accepted(BindingSet.EMPTY, false), NOW, false);

        DateHeader date = (DateHeader) r.getHeader(DateHeader.NAME);
        assertNotNull(date);
        assertEquals(NOW.toEpochMilli(), date.getDate().getTimeInMillis());
        assertNotNull(((ToHeader) r.getHeader(ToHeader.NAME)).getTag());
        assertTrue(contacts(r).isEmpty());
    }

    @Test
    void quotedInstanceIdGoesOutQuoted() throws Exception {
        BindingSet set = new BindingSet(List.of(binding("sip:alice@192.0.2.1", Binding.Q_UNSPECIFIED, 100,
                Map.of("+sip.instance", "\"<urn:uuid:abcd>\"", "reg-id", "1"))));

        Response r = responses.toResponse(register(), new Accepted(set, true), NOW, false);

        String contact = contacts(r).get(0).toString();
        assertTrue(contact.contains("+sip.instance=\"<urn:uuid:abcd>\""), contact);
        assertTrue(contact.contains("reg-id=1"), contact);
    }

    @Test
    void anUnauthenticatedUdpAnswerStaysWithinAFewTimesTheRequest() throws Exception {
        List<Binding> many = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            many.add(binding("sip:alice-" + "x".repeat(200) + i + "@192.0.2." + i, Binding.Q_UNSPECIFIED, 600, Map.of()));
        }
        Request request = register();
        int requestSize = request.toString().length();

        Response bounded = responses.toResponse(request, new Accepted(new BindingSet(many), true), NOW, true);
        Response full = responses.toResponse(request, new Accepted(new BindingSet(many), true), NOW, false);

        assertTrue(bounded.toString().length() <= RegisterResponses.AMPLIFICATION_BOUND * requestSize,
                bounded.toString().length() + " bytes for a " + requestSize + " byte request");
        assertTrue(contacts(bounded).size() < 10 && !contacts(bounded).isEmpty(), contacts(bounded).toString());
        assertTrue(bounded.getHeader("Warning").toString().contains("truncated"));
        assertEquals(10, contacts(full).size());
    }

    @Test
    void intervalTooBriefCarriesMinExpires() throws Exception {
        Response r = responses.toResponse(register(), new Rejected(423, "Interval Too Brief", OptionalLong.of(60)), NOW, false);

        assertEquals(423, r.getStatusCode());
        assertEquals(60, ((MinExpiresHeader) r.getHeader(MinExpiresHeader.NAME)).getExpires());
    }

    @Test
    void rejectionKeepsItsReasonPhrase() throws Exception {
        Response r = responses.toResponse(register(), Rejected.of(500, "Out of order CSeq for contact x"), NOW, false);

        assertEquals(500, r.getStatusCode());
        assertEquals("Out of order CSeq for contact x", r.getReasonPhrase());
    }
}
