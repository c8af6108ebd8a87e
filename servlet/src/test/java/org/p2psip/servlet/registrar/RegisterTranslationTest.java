package org.p2psip.servlet.registrar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.OptionalLong;

import javax.sip.message.Request;

import org.junit.jupiter.api.Test;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.Binding;
import org.p2psip.core.location.ContactSpec;
import org.p2psip.core.location.RegisterRequest;
import org.p2psip.core.location.ServedDomains;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.sip.BadRequestException;
import org.p2psip.servlet.testing.Messages;
import org.p2psip.core.testing.RequestText;

class RegisterTranslationTest {

    private static final HostPort SOURCE = new HostPort("192.0.2.1", 5062);
    private static final ServedDomains DOMAINS = ServedDomains.of("example.com", new HostPort("192.0.2.100", 5060));

    private static RequestText register() {
        return RequestText.standard("REGISTER", "sip:example.com", "192.0.2.1:5062", "sip:alice@example.com",
                "sip:Alice@EXAMPLE.com;transport=udp", "call-1", 7);
    }

    private static RegisterRequest translate(RequestText text) throws Exception {
        Request r = Messages.request(text);
        return RegisterTranslation.translate(r, SOURCE, DOMAINS);
    }

    @Test
    void readsAorCallIdCseqSourceAndTransport() throws Exception {
        RegisterRequest r = translate(register().with("Contact: <sip:alice@192.0.2.1:5062>"));

        assertEquals(AddressOfRecord.parse("sip:Alice@example.com"), r.aor());
        assertEquals("call-1", r.callId());
        assertEquals(7, r.cseq());
        assertEquals(SOURCE, r.source());
        assertEquals("UDP", r.transport());
    }

    @Test
    void contactParametersBecomeExpiresQAndTheRest() throws Exception {
        RegisterRequest r = translate(register().with("Contact: <sip:alice@192.0.2.1:5062;transport=tcp>"
                + ";expires=120;q=0.25;+sip.instance=\"<urn:uuid:1234>\";reg-id=2;video"));

        ContactSpec c = r.contacts().get(0);
        assertEquals("sip:alice@192.0.2.1:5062;transport=tcp", c.uri());
        assertEquals(OptionalLong.of(120), c.expires());
        assertEquals(250, c.q());
        assertEquals("<urn:uuid:1234>", c.instanceId().orElseThrow());
        assertEquals(2, c.regId().getAsInt());
        assertTrue(c.params().containsKey("video"));
    }

    @Test
    void qWithoutFractionIsWholeAndAbsentQIsUnspecified() throws Exception {
        RegisterRequest r = translate(register().with("Contact: <sip:a@192.0.2.2>;q=1")
                .with("Contact: <sip:a@192.0.2.3>"));

        assertEquals(1000, r.contacts().get(0).q());
        assertEquals(Binding.Q_UNSPECIFIED, r.contacts().get(1).q());
    }

    @Test
    void expiresHeaderIsRead() throws Exception {
        assertEquals(OptionalLong.of(300), translate(register().with("Expires: 300")).expires());
        assertEquals(OptionalLong.empty(), translate(register()).expires());
    }

    @Test
    void registerWithoutContactIsAFetch() throws Exception {
        assertTrue(translate(register()).isFetch());
    }

    @Test
    void starContactIsTheWildcard() throws Exception {
        RegisterRequest r = translate(register().with("Contact: *").with("Expires: 0"));

        assertEquals(List.of(ContactSpec.wildcard()), r.contacts());
    }

    @Test
    void pathValuesAreKeptInOrder() throws Exception {
        RegisterRequest r = translate(register().with("Path: <sip:p1.example.net;lr>")
                .with("Path: <sip:p2.example.net;lr>").with("Contact: <sip:a@192.0.2.4>"));

        assertEquals(List.of("<sip:p1.example.net;lr>", "<sip:p2.example.net;lr>"), r.path());
    }

    @Test
    void toThatIsNotSipIsRejected() throws Exception {
        BadRequestException e = assertThrows(BadRequestException.class,
                () -> translate(register().replace("To:", "To: <isbn:2983792873>")));

        assertEquals(400, e.status());
        assertTrue(e.getMessage().contains("To"), e.getMessage());
    }

    @Test
    void bareContactWithUriHeadersIsRejected() {
        BadRequestException e = assertThrows(BadRequestException.class,
                () -> translate(register().with("Contact: sip:user@example.com?Route=%3Csip:sip.example.com%3E")));

        assertEquals(400, e.status());
    }

    @Test
    void bracketedContactWithUriHeadersIsAccepted() throws Exception {
        RegisterRequest r = translate(register().with("Contact: <sip:user@example.com?Route=%3Csip:sip.example.com%3E>"));

        assertTrue(r.contacts().get(0).uri().contains("?Route="), r.contacts().get(0).uri());
    }

    @Test
    void qOutsideZeroToOneIsRejected() {
        assertThrows(BadRequestException.class, () -> translate(register().with("Contact: <sip:a@192.0.2.5>;q=1.5")));
        assertThrows(BadRequestException.class, () -> translate(register().with("Contact: <sip:a@192.0.2.5>;q=0.1234")));
    }

    @Test
    void requestUriThatIsNotSipGets416() {
        BadRequestException e = assertThrows(BadRequestException.class, () -> translate(
                RequestText.standard("REGISTER", "tel:+1555", "192.0.2.1:5062", "sip:a@example.com",
                        "sip:a@example.com", "c", 1)));

        assertEquals(416, e.status());
    }

    @Test
    void anAorAtTheNodesAddressBelongsToTheDefaultDomain() throws Exception {
        RegisterRequest r = translate(RequestText.standard("REGISTER", "sip:192.0.2.100", "192.0.2.1:5062",
                "sip:dave@192.0.2.100:5060", "sip:dave@192.0.2.100", "c", 1));

        assertEquals(AddressOfRecord.parse("sip:dave@example.com"), r.aor());
    }

    @Test
    void aRegisterForADomainNotServedGets403() {
        BadRequestException foreignTo = assertThrows(BadRequestException.class, () -> translate(
                RequestText.standard("REGISTER", "sip:example.com", "192.0.2.1:5062", "sip:a@elsewhere.test",
                        "sip:a@elsewhere.test", "c", 1)));
        BadRequestException foreignUri = assertThrows(BadRequestException.class, () -> translate(
                RequestText.standard("REGISTER", "sip:elsewhere.test", "192.0.2.1:5062", "sip:a@example.com",
                        "sip:a@example.com", "c", 1)));

        assertEquals(403, foreignTo.status());
        assertEquals(403, foreignUri.status());
    }

    @Test
    void tcpViaGivesTcpTransport() throws Exception {
        RegisterRequest r = translate(register().replace("Via:", "Via: SIP/2.0/TCP 192.0.2.1:5062;branch=z9hG4bKx"));

        assertEquals("TCP", r.transport());
    }
}
