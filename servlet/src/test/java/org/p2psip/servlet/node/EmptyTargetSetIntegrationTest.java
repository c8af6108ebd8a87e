package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.UserCredentials;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;
import org.p2psip.servlet.testing.DigestAnswers;
import org.p2psip.servlet.testing.SharedLocalDhtProvider;

/**
 * A call to a local target that has no bindings (RFC 3261 §16.5, an empty
 * target set): 480, or 404 for someone who is not a user here, which only an
 * authenticated caller learns. Once with plain flags, once as
 * {@code docs/examples/node.conf} configures a node ({@code alias} and
 * {@code record-route} naming the balancer in front, which the phone's
 * outbound proxy Route names too): there the node once forwarded the
 * request to the served domain as a host and answered 500.
 */
class EmptyTargetSetIntegrationTest {

    private static final String DOMAIN = "p2psip.test";
    private static final HostPort FRONT = HostPort.parse("127.0.0.1:5999");

    private final AtomicLong nc = new AtomicLong();
    private boolean exampleConfiguration;
    private FrontNode node;
    private UdpPeer phone;
    private String alice;
    private String bob;

    private void start(boolean exampleConfiguration) throws Exception {
        this.exampleConfiguration = exampleConfiguration;
        TrustSettings trust = TrustSettings.DEFAULT.withDomains(List.of(DOMAIN)).withClusterSecret("empty-target-secret");
        if (exampleConfiguration) {
            trust = trust.withAliases(List.of(FRONT)).withRecordRoute(FRONT, Optional.empty());
        }
        node = FrontNode.start(new NodeSettings(new HostPort("127.0.0.1", 0), SharedLocalDhtProvider.NAME,
                Optional.empty(), List.of(), 1, Map.of("store", "empty-target-" + UUID.randomUUID()),
                RegistrarPolicy.DEFAULT, NodeSettings.DEFAULT_DHT_TIMEOUT, NodeSettings.DEFAULT_SIP_THREADS,
                Clock.systemUTC(), trust, ProtectionSettings.DEFAULT, Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty()));
        phone = new UdpPeer();
        String tag = UUID.randomUUID().toString().substring(0, 8);
        alice = "alice-" + tag;
        bob = "bob-" + tag;
        node.credentials().put(UserCredentials.fromPassword(aor(alice), "wonderland")).join();
        node.credentials().put(UserCredentials.fromPassword(aor(bob), "builder")).join();
    }

    @AfterEach
    void stop() {
        if (phone != null) {
            phone.close();
        }
        if (node != null) {
            node.close();
        }
    }

    private static AddressOfRecord aor(String user) {
        return AddressOfRecord.parse(uri(user));
    }

    private static String uri(String user) {
        return "sip:" + user + "@" + DOMAIN;
    }

    /** An INVITE as a phone sends it: through its outbound proxy, the front, when one is configured. */
    private RequestText invite(String from, String to, String callId, long cseq) {
        RequestText r = RequestText.standard("INVITE", to, phone.hostPort(), from, to, callId, cseq)
                .with("Contact: <sip:caller@" + phone.hostPort() + ">");
        return exampleConfiguration ? r.with("Route: <sip:" + FRONT + ";lr>") : r;
    }

    private SipText send(RequestText r) throws Exception {
        String callId = r.text().lines().filter(l -> l.startsWith("Call-ID:")).findFirst().orElseThrow().substring(9);
        phone.send(r.text(), node.sipAddress());
        return phone.expect(m -> m.isResponse() && m.status() >= 200 && m.header("call-id").orElse("").equals(callId),
                "a final response to " + r.text().lines().findFirst().orElseThrow());
    }

    /** Alice's INVITE to {@code to}, answered with her password after the 407. */
    private SipText authenticatedCall(String to) throws Exception {
        String callId = "call-" + UUID.randomUUID();
        SipText challenge = send(invite(uri(alice), to, callId, 1));
        assertEquals(407, challenge.status(), challenge.toString());
        return send(invite(uri(alice), to, callId, 2).with("Proxy-Authorization: " + DigestAnswers.answer(
                DigestAnswers.challengeFor(challenge, DigestAlgorithm.SHA_256), alice, "wonderland", "INVITE", to,
                nc.incrementAndGet())));
    }

    @ParameterizedTest(name = "example configuration: {0}")
    @ValueSource(booleans = {false, true})
    void anAuthenticatedCallToAUserWithoutBindingsGets480(boolean exampleConfiguration) throws Exception {
        start(exampleConfiguration);

        SipText answer = authenticatedCall(uri(bob));

        assertEquals(480, answer.status(), answer.toString());
    }

    @ParameterizedTest(name = "example configuration: {0}")
    @ValueSource(booleans = {false, true})
    void anAuthenticatedCallToSomeoneWhoIsNoUserHereGets404(boolean exampleConfiguration) throws Exception {
        start(exampleConfiguration);

        SipText answer = authenticatedCall(uri("nobody-" + UUID.randomUUID()));

        assertEquals(404, answer.status(), answer.toString());
    }

    @ParameterizedTest(name = "example configuration: {0}")
    @ValueSource(booleans = {false, true})
    void aStrangerGets480ForUsersAndNonUsersAlikeSoCannotListThem(boolean exampleConfiguration) throws Exception {
        start(exampleConfiguration);

        SipText toBob = send(invite("sip:carol@elsewhere.test", uri(bob), "in-" + UUID.randomUUID(), 1));
        SipText toNobody = send(invite("sip:carol@elsewhere.test", uri("nobody-" + UUID.randomUUID()),
                "in-" + UUID.randomUUID(), 1));

        assertEquals(480, toBob.status(), toBob.toString());
        assertEquals(480, toNobody.status(), toNobody.toString());
    }
}
