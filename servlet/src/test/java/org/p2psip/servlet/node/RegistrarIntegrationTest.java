package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.Binding;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;

/** REGISTER and OPTIONS against a node on real UDP and TCP sockets. */
class RegistrarIntegrationTest {

    private static FrontNode node;
    private UdpPeer ua;

    @BeforeAll
    static void startNode() throws Exception {
        node = FrontNode.start(NodeSettings.local(new HostPort("127.0.0.1", 0))
                .withTrust(TrustSettings.open("example.com"))
                .withPolicy(new RegistrarPolicy(60, 3600, 7200, 3)));
    }

    @AfterAll
    static void stopNode() {
        node.close();
    }

    @BeforeEach
    void openUa() throws Exception {
        ua = new UdpPeer();
    }

    @AfterEach
    void closeUa() {
        ua.close();
    }

    private String aor(String user) {
        return "sip:" + user + "@example.com";
    }

    private RequestText register(String user, long cseq, String callId) {
        return RequestText.standard("REGISTER", "sip:example.com", ua.hostPort(), aor(user), aor(user), callId, cseq);
    }

    private SipText send(RequestText r) throws Exception {
        ua.send(r.text(), node.sipAddress());
        return ua.expect(SipText::isResponse, "a response to " + r.text().lines().findFirst().orElse(""));
    }

    private List<Binding> stored(String user) {
        return node.locationService().lookup(AddressOfRecord.parse(aor(user))).join();
    }

    @Test
    void registerReturns200ListingContactsWithExpiresAndDate() throws Exception {
        String user = "alice-" + UUID.randomUUID();
        SipText ok = send(register(user, 1, "c1-" + user)
                .with("Contact: <sip:alice@192.0.2.10:5060>;q=0.7;expires=1200")
                .with("Contact: <sip:alice@192.0.2.11:5060>")
                .with("Expires: 600"));

        assertEquals(200, ok.status(), ok.firstLine());
        assertTrue(ok.header("date").isPresent(), "200 to REGISTER carries Date");
        List<String> contacts = ok.headers("contact");
        assertEquals(2, contacts.size(), contacts.toString());
        String withQ = contacts.stream().filter(c -> c.contains("192.0.2.10")).findFirst().orElseThrow();
        assertTrue(withQ.contains("q=0.7") && withQ.contains("expires=1200"), withQ);
        String plain = contacts.stream().filter(c -> c.contains("192.0.2.11")).findFirst().orElseThrow();
        assertTrue(plain.contains("expires=600"), plain);
        assertTrue(ok.tag("to").isPresent(), "the registrar tags To");
        assertEquals(2, stored(user).size());
    }

    @Test
    void registerWithoutContactReturnsCurrentBindings() throws Exception {
        String user = "bob-" + UUID.randomUUID();
        String callId = "c2-" + user;
        assertEquals(200, send(register(user, 1, callId).with("Contact: <sip:bob@192.0.2.20>")).status());

        SipText fetch = send(register(user, 2, callId));

        assertEquals(200, fetch.status());
        assertEquals(1, fetch.headers("contact").size(), fetch.headers("contact").toString());
        assertTrue(fetch.headers("contact").get(0).contains("sip:bob@192.0.2.20"));
        assertTrue(fetch.headers("contact").get(0).contains("expires="));
    }

    @Test
    void tooShortExpiryGets423WithMinExpiresAndWritesNothing() throws Exception {
        String user = "carol-" + UUID.randomUUID();
        SipText r = send(register(user, 1, "c3-" + user).with("Contact: <sip:carol@192.0.2.30>;expires=5"));

        assertEquals(423, r.status());
        assertEquals("60", r.header("min-expires").orElse(""));
        assertTrue(stored(user).isEmpty());
    }

    @Test
    void wildcardWithExpiresZeroRemovesEveryBinding() throws Exception {
        String user = "dave-" + UUID.randomUUID();
        String callId = "c4-" + user;
        send(register(user, 1, callId).with("Contact: <sip:dave@192.0.2.40>").with("Contact: <sip:dave@192.0.2.41>"));
        assertEquals(2, stored(user).size());

        SipText r = send(register(user, 2, callId).with("Contact: *").with("Expires: 0"));

        assertEquals(200, r.status());
        assertTrue(r.headers("contact").isEmpty(), r.headers("contact").toString());
        assertTrue(stored(user).isEmpty());
    }

    @Test
    void wildcardWithoutExpiresZeroIsRejectedWith400() throws Exception {
        String user = "erin-" + UUID.randomUUID();
        send(register(user, 1, "c5-" + user).with("Contact: <sip:erin@192.0.2.50>"));

        SipText r = send(register(user, 2, "c5-" + user).with("Contact: *").with("Expires: 100"));

        assertEquals(400, r.status());
        assertEquals(1, stored(user).size(), "a rejected REGISTER changes nothing");
    }

    @Test
    void nonSipToIsRejectedWith400AndWritesNothing() throws Exception {
        RequestText r = RequestText.standard("REGISTER", "sip:example.com", ua.hostPort(),
                "sip:x@example.com", "sip:x@example.com", "c6-" + UUID.randomUUID(), 1)
                .replace("To:", "To: <tel:+15551234>")
                .with("Contact: <sip:x@192.0.2.60>");

        SipText response = send(r);

        assertEquals(400, response.status());
        assertTrue(response.reason().contains("To"), response.reason());
    }

    @Test
    void bareContactWithUriHeadersIsRejectedWith400() throws Exception {
        String user = "frank-" + UUID.randomUUID();
        SipText r = send(register(user, 1, "c7-" + user).with("Contact: sip:frank@192.0.2.70?Route=%3Csip:x%3E"));

        assertEquals(400, r.status());
        assertTrue(stored(user).isEmpty());
    }

    @Test
    void malformedExpiresIsRejectedWith400NamingTheHeader() throws Exception {
        String user = "gina-" + UUID.randomUUID();
        SipText r = send(register(user, 1, "c8-" + user).with("Contact: <sip:gina@192.0.2.80>").with("Expires: soon"));

        assertEquals(400, r.status());
        assertTrue(r.reason().contains("Expires"), r.reason());
        assertTrue(stored(user).isEmpty());
    }

    @Test
    void moreContactsThanAllowedIsRefusedAndWritesNothing() throws Exception {
        String user = "hal-" + UUID.randomUUID();
        RequestText r = register(user, 1, "c9-" + user);
        for (int i = 0; i < 4; i++) {
            r.with("Contact: <sip:hal@192.0.2.9" + i + ">");
        }

        SipText response = send(r);

        assertEquals(503, response.status());
        assertTrue(stored(user).isEmpty());
    }

    @Test
    void retransmittedRegisterIsAnsweredFromTheTransaction() throws Exception {
        String user = "ivy-" + UUID.randomUUID();
        String text = register(user, 1, "c10-" + user).with("Contact: <sip:ivy@192.0.2.100>").text();
        ua.send(text, node.sipAddress());
        SipText first = ua.expectResponse("REGISTER", 200);

        ua.send(text, node.sipAddress());

        // The completed transaction answers the retransmission with the very
        // same 200 (same To tag); processing it again would have made a new one.
        SipText second = ua.expectResponse("REGISTER", 200);
        assertEquals(first.tag("to"), second.tag("to"));
        assertEquals(1, stored(user).size());
    }

    @Test
    void registerOverTcpIsAnsweredOnTheSameConnection() throws Exception {
        String user = "tcp-" + UUID.randomUUID();
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), node.sipAddress().port())) {
            s.setSoTimeout(5000);
            String sentBy = "127.0.0.1:" + s.getLocalPort();
            String text = RequestText.standard("REGISTER", "sip:example.com", sentBy, aor(user), aor(user),
                            "tcp-" + user, 1)
                    .replace("Via:", "Via: SIP/2.0/TCP " + sentBy + ";branch=" + UdpPeer.branch())
                    .with("Contact: <sip:tcp@" + sentBy + ";transport=tcp>")
                    .text();
            s.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();

            SipText response = readMessage(s.getInputStream());

            assertEquals(200, response.status(), response.firstLine());
            assertTrue(response.headers("contact").get(0).contains("transport=tcp"));
        }
        Binding b = stored(user).get(0);
        assertEquals("TCP", b.transport());
    }

    @Test
    void aRegisterOf60000BytesOverUdpIsHandledWhole() throws Exception {
        String aor = aor("big-datagram");
        RequestText r = RequestText.standard("REGISTER", "sip:example.com", ua.hostPort(), aor, aor,
                "big-" + UUID.randomUUID(), 1).with("X-Padding: " + "p".repeat(59_600))
                .with("Contact: <sip:big@192.0.2.61:5060>");
        assertTrue(r.text().length() >= 59_500 && r.text().length() <= 60_000, "length " + r.text().length());

        assertEquals(200, send(r).status());
        // the Contact sits after 59,600 bytes of padding: stored only if nothing was cut
        assertEquals("sip:big@192.0.2.61:5060", stored("big-datagram").get(0).contact());
    }

    @Test
    void optionsToTheNodeIsAnswered200WithAllowAcceptAndSupported() throws Exception {
        HostPort self = node.sipAddress();
        RequestText options = RequestText.standard("OPTIONS", "sip:" + self, ua.hostPort(),
                "sip:ping@example.com", "sip:" + self, "o-" + UUID.randomUUID(), 1);

        SipText r = send(options);

        assertEquals(200, r.status());
        assertTrue(r.header("allow").orElse("").contains("REGISTER"));
        assertTrue(r.header("accept").isPresent());
        assertTrue(r.header("supported").isPresent());
    }

    @Test
    void anOutboundRegistrationThroughAnEdgeProxyKeepingItsFlowIsAnsweredRequireOutbound() throws Exception {
        String aor = "sip:olga-" + UUID.randomUUID() + "@example.com";
        String contact = "Contact: <sip:olga@192.0.2.70;transport=tcp>;reg-id=1;+sip.instance=\"<urn:uuid:00000000-0000-0000-0000-000000000001>\"";
        RequestText withOb = RequestText.standard("REGISTER", "sip:example.com", ua.hostPort(), aor, aor,
                "ob-" + UUID.randomUUID(), 1).with(contact).with("Supported: outbound, path")
                .with("Path: <sip:t1-0123456789abcdef@192.0.2.1:5060;lr;ob>");

        SipText ok = send(withOb);

        assertEquals(200, ok.status());
        assertEquals(Optional.of("outbound"), ok.header("require"));
        assertTrue(ok.header("path").orElse("").contains(";ob"), "Path echoed (RFC 3327 §5.3)");
        assertEquals(List.of("<sip:t1-0123456789abcdef@192.0.2.1:5060;lr;ob>"),
                stored(aor.substring(4, aor.indexOf('@'))).get(0).path(), "the binding keeps the flow's Path");

        String other = "sip:olaf-" + UUID.randomUUID() + "@example.com";
        SipText noOb = send(RequestText.standard("REGISTER", "sip:example.com", ua.hostPort(), other, other,
                "nob-" + UUID.randomUUID(), 1).with(contact).with("Supported: outbound, path")
                .with("Path: <sip:192.0.2.1:5060;lr>"));
        assertEquals(200, noOb.status());
        assertTrue(noOb.header("require").isEmpty(), "an edge proxy that keeps no flow: no outbound (RFC 5626 §6)");
    }

    @Test
    void aRegisterForADomainNotServedGets403AndWritesNothing() throws Exception {
        String aor = "sip:someone@" + UUID.randomUUID() + ".example.org";
        RequestText r = RequestText.standard("REGISTER", "sip:example.com", ua.hostPort(), aor, aor,
                "d-" + UUID.randomUUID(), 1).with("Contact: <sip:someone@192.0.2.200>");

        assertEquals(403, send(r).status());
        assertTrue(node.locationService().lookup(AddressOfRecord.parse(aor)).join().isEmpty());
    }

    @Test
    void theNodesOwnAddressWithOrWithoutPortIsTheServedDomain() throws Exception {
        String user = "dave-" + UUID.randomUUID();
        String withPort = "sip:" + user + "@" + node.sipAddress();
        String withoutPort = "sip:" + user + "@" + node.sipAddress().host();
        assertEquals(200, send(RequestText.standard("REGISTER", "sip:" + node.sipAddress(), ua.hostPort(), withPort,
                withPort, "e-" + user, 1).with("Contact: <sip:dave@192.0.2.201>")).status());

        SipText fetched = send(RequestText.standard("REGISTER", "sip:" + node.sipAddress().host(), ua.hostPort(),
                withoutPort, withoutPort, "f-" + user, 1));

        assertEquals(1, fetched.headers("contact").size(), fetched.toString());
        assertEquals(1, stored(user).size());
    }

    /** Reads one SIP message framed by Content-Length from a stream. */
    static SipText readMessage(InputStream raw) throws IOException {
        InputStream in = new BufferedInputStream(raw);
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("connection closed after " + head);
            }
            head.write(c);
            matched = (c == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (c == '\r' ? 1 : 0);
        }
        SipText headers = SipText.parse(head.toString(StandardCharsets.ISO_8859_1));
        int length = Integer.parseInt(headers.header("content-length").orElse("0").trim());
        byte[] body = in.readNBytes(length);
        return SipText.parse(head.toString(StandardCharsets.ISO_8859_1) + new String(body, StandardCharsets.ISO_8859_1));
    }
}
