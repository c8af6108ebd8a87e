package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.UserCredentials;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.Binding;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.net.HostPort;
import org.p2psip.servlet.testing.DigestAnswers;
import org.p2psip.core.testing.RequestText;
import org.p2psip.servlet.testing.SharedLocalDhtProvider;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;

/**
 * Digest authentication, served domains and the relay decision on two
 * nodes sharing one DHT, over real UDP sockets: what an attacker on the
 * network and a phone with a password each get.
 */
class AuthIntegrationTest {

    private static final String DOMAIN = "p2psip.test";
    private static FrontNode node1;
    private static FrontNode node2;

    private final AtomicLong nc = new AtomicLong();
    private UdpPeer phone;
    private String alice;
    private String bob;

    @BeforeAll
    static void startNodes() throws Exception {
        String store = "auth-" + UUID.randomUUID();
        node1 = FrontNode.start(settings(store));
        node2 = FrontNode.start(settings(store));
    }

    static NodeSettings settings(String store) {
        return new NodeSettings(new HostPort("127.0.0.1", 0), SharedLocalDhtProvider.NAME, Optional.empty(), List.of(),
                1, Map.of("store", store), RegistrarPolicy.DEFAULT, NodeSettings.DEFAULT_DHT_TIMEOUT,
                NodeSettings.DEFAULT_SIP_THREADS, Clock.systemUTC(),
                TrustSettings.DEFAULT.withDomains(List.of(DOMAIN)).withClusterSecret("auth-test-secret"),
                ProtectionSettings.DEFAULT, Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty());
    }

    @AfterAll
    static void stopNodes() {
        node1.close();
        node2.close();
    }

    @BeforeEach
    void users() throws Exception {
        phone = new UdpPeer();
        String tag = UUID.randomUUID().toString().substring(0, 8);
        alice = "alice-" + tag;
        bob = "bob-" + tag;
        node1.credentials().put(UserCredentials.fromPassword(aor(alice), "wonderland")).join();
        node1.credentials().put(UserCredentials.fromPassword(aor(bob), "builder")).join();
    }

    @AfterEach
    void closePhone() {
        phone.close();
    }

    private static AddressOfRecord aor(String user) {
        return AddressOfRecord.parse("sip:" + user + "@" + DOMAIN);
    }

    private static String uri(String user) {
        return "sip:" + user + "@" + DOMAIN;
    }

    private List<Binding> bindings(String user) {
        return node1.locationService().lookup(aor(user)).join();
    }

    private RequestText register(String user, String callId, long cseq) {
        return RequestText.standard("REGISTER", "sip:" + DOMAIN, phone.hostPort(), uri(user), uri(user), callId, cseq);
    }

    private SipText send(RequestText r, FrontNode to) throws Exception {
        String callId = r.text().lines().filter(l -> l.startsWith("Call-ID:")).findFirst().orElseThrow().substring(9);
        phone.send(r.text(), to.sipAddress());
        return phone.expect(m -> m.isResponse() && m.status() >= 200 && m.header("call-id").orElse("").equals(callId),
                "a final response to " + r.text().lines().findFirst().orElseThrow());
    }

    private String answer(SipText challenge, DigestAlgorithm a, String user, String password, String method, String uri) {
        return DigestAnswers.answer(DigestAnswers.challengeFor(challenge, a), user, password, method, uri, nc.incrementAndGet());
    }

    @Test
    void aRegisterWithoutCredentialsSentAgainIsChallengedAfreshNotFromATransaction() throws Exception {
        RequestText r = register(alice, "again-" + UUID.randomUUID(), 1)
                .with("Contact: <sip:" + alice + "@" + phone.hostPort() + ">");

        SipText first = send(r, node1);
        SipText again = send(r, node1);

        assertEquals(401, first.status(), first.toString());
        assertEquals(401, again.status(), again.toString());
        // A server transaction would have sent its one 401 again; a stateless answer is a new challenge.
        assertNotEquals(DigestAnswers.challengeFor(first, DigestAlgorithm.SHA_256).nonce(),
                DigestAnswers.challengeFor(again, DigestAlgorithm.SHA_256).nonce());
    }

    /** Registers {@code user}'s contact as a phone does: unauthenticated, 401, again with credentials. */
    private SipText registerWithPassword(String user, String password, String contact, FrontNode first, FrontNode second)
            throws Exception {
        String callId = "reg-" + UUID.randomUUID();
        SipText challenge = send(register(user, callId, 1).with("Contact: <" + contact + ">"), first);
        assertEquals(401, challenge.status(), challenge.toString());
        return send(register(user, callId, 2).with("Contact: <" + contact + ">").with("Authorization: "
                + answer(challenge, DigestAlgorithm.SHA_256, user, password, "REGISTER", "sip:" + DOMAIN)), second);
    }

    @Test
    void aRegisterWithoutCredentialsIsChallengedWithEveryAlgorithmStrongestFirst() throws Exception {
        SipText r = send(register(alice, "c-" + alice, 1).with("Contact: <sip:alice@192.0.2.1>"), node1);

        assertEquals(401, r.status());
        List<Map<String, String>> challenges = DigestAnswers.challenges(r);
        assertEquals(List.of("SHA-256", "SHA-512-256", "MD5"), challenges.stream().map(c -> c.get("algorithm")).toList());
        assertTrue(challenges.stream().allMatch(c -> DOMAIN.equals(c.get("realm")) && "auth".equals(c.get("qop"))
                && c.get("nonce").equals(challenges.get(0).get("nonce")) && !c.containsKey("stale")), challenges.toString());
        assertTrue(bindings(alice).isEmpty());
    }

    @Test
    void aChallengeFromOneNodeAnsweredOnAnotherRegisters() throws Exception {
        SipText ok = registerWithPassword(alice, "wonderland", "sip:alice@192.0.2.1", node1, node2);

        assertEquals(200, ok.status(), ok.toString());
        assertEquals(1, bindings(alice).size());
    }

    @Test
    void md5AndSha512256AnswersRegisterToo() throws Exception {
        for (DigestAlgorithm a : List.of(DigestAlgorithm.MD5, DigestAlgorithm.SHA_512_256)) {
            String callId = "alg-" + a + "-" + alice;
            SipText challenge = send(register(alice, callId, 1).with("Contact: <sip:alice@192.0.2.2>"), node1);
            SipText ok = send(register(alice, callId, 2).with("Contact: <sip:alice@192.0.2.2>")
                    .with("Authorization: " + answer(challenge, a, alice, "wonderland", "REGISTER", "sip:" + DOMAIN)), node1);
            assertEquals(200, ok.status(), a + ": " + ok);
        }
    }

    @Test
    void aWrongPasswordAndAnUnknownUserGetTheSameAnswerAndWriteNothing() throws Exception {
        SipText challenge = send(register(alice, "w-" + alice, 1).with("Contact: <sip:alice@192.0.2.3>"), node1);
        SipText wrong = send(register(alice, "w-" + alice, 2).with("Contact: <sip:alice@192.0.2.3>").with("Authorization: "
                + answer(challenge, DigestAlgorithm.SHA_256, alice, "looking-glass", "REGISTER", "sip:" + DOMAIN)), node2);
        String nobody = "nobody-" + alice;
        SipText challenge2 = send(register(nobody, "u-" + nobody, 1).with("Contact: <sip:n@192.0.2.3>"), node1);
        SipText unknown = send(register(nobody, "u-" + nobody, 2).with("Contact: <sip:n@192.0.2.3>").with("Authorization: "
                + answer(challenge2, DigestAlgorithm.SHA_256, nobody, "anything", "REGISTER", "sip:" + DOMAIN)), node2);

        assertEquals(401, wrong.status());
        assertEquals(401, unknown.status());
        assertEquals(wrong.reason(), unknown.reason());
        assertEquals(shape(wrong), shape(unknown));
        assertTrue(bindings(alice).isEmpty());
        assertTrue(bindings(nobody).isEmpty());
    }

    /** A response's header names and challenge parameters, without the values that differ per request. */
    private static List<String> shape(SipText r) {
        return r.headers().stream().map(h -> h.getKey() + (h.getKey().endsWith("authenticate")
                ? DigestAnswers.challenges(r).get(0).keySet().toString() : "")).sorted().toList();
    }

    @Test
    void aReplayedAuthorizationIsRefusedOnEveryNodeAndChangesNothing() throws Exception {
        String callId = "replay-" + alice;
        SipText challenge = send(register(alice, callId, 1).with("Contact: <sip:alice@192.0.2.4>"), node1);
        String authorization = "Authorization: "
                + answer(challenge, DigestAlgorithm.SHA_256, alice, "wonderland", "REGISTER", "sip:" + DOMAIN);
        assertEquals(200, send(register(alice, callId, 2).with("Contact: <sip:alice@192.0.2.4>").with(authorization), node1).status());

        SipText onOther = send(register(alice, "evil-" + alice, 1).with("Contact: *").with("Expires: 0")
                .with(authorization), node2);
        SipText onSame = send(register(alice, "evil2-" + alice, 1).with("Contact: <sip:mallory@192.0.2.66>")
                .with(authorization), node1);

        assertEquals(401, onOther.status());
        assertEquals(401, onSame.status());
        assertTrue(DigestAnswers.challenges(onOther).stream().allMatch(c -> "true".equals(c.get("stale"))));
        assertEquals(List.of("sip:alice@192.0.2.4"), bindings(alice).stream().map(Binding::contact).toList());
    }

    @Test
    void aRetransmissionReachingAnotherNodeIsAnsweredLikeItsOriginal() throws Exception {
        // A round-robin balancer sends a UDP retransmission to another node than the one
        // holding the transaction; that node must not take the copy for a replay.
        String callId = "copy-" + alice;
        SipText challenge = send(register(alice, callId, 1).with("Contact: <sip:alice@192.0.2.7>"), node1);
        RequestText authorized = register(alice, callId, 2).with("Contact: <sip:alice@192.0.2.7>")
                .with("Authorization: " + answer(challenge, DigestAlgorithm.SHA_256, alice, "wonderland",
                        "REGISTER", "sip:" + DOMAIN));

        assertEquals(200, send(authorized, node1).status());
        SipText copy = send(authorized, node2);

        assertEquals(200, copy.status(), copy::toString);
        assertEquals(List.of("sip:alice@192.0.2.7"), copy.headers("contact").stream()
                .map(c -> c.replaceAll("^<([^>]*)>.*$", "$1")).toList());
    }

    @Test
    void queryAndRemovalWithoutHerPasswordFailAndBobsCredentialsCannotChangeAlicesBindings() throws Exception {
        assertEquals(200, registerWithPassword(alice, "wonderland", "sip:alice@192.0.2.5", node1, node1).status());

        SipText query = send(register(alice, "q-" + alice, 1), node2);
        SipText removal = send(register(alice, "r-" + alice, 1).with("Contact: *").with("Expires: 0"), node2);
        SipText challenge = send(register(alice, "b-" + alice, 1).with("Contact: <sip:bob@192.0.2.66>"), node1);
        SipText asBob = send(register(alice, "b-" + alice, 2).with("Contact: <sip:bob@192.0.2.66>").with("Authorization: "
                + answer(challenge, DigestAlgorithm.SHA_256, bob, "builder", "REGISTER", "sip:" + DOMAIN)), node2);

        assertEquals(401, query.status());
        assertTrue(query.headers("contact").isEmpty(), "a challenge lists no bindings");
        assertEquals(401, removal.status());
        assertEquals(403, asBob.status());
        assertEquals(List.of("sip:alice@192.0.2.5"), bindings(alice).stream().map(Binding::contact).toList());
    }

    private RequestText invite(String from, String to, String callId) {
        return invite(from, to, callId, 1);
    }

    private RequestText invite(String from, String to, String callId, long cseq) {
        return RequestText.standard("INVITE", to, phone.hostPort(), from, to, callId, cseq)
                .with("Contact: <sip:caller@" + phone.hostPort() + ">");
    }

    @Test
    void aLocalUserIsChallengedThenCallsWithHerCredentialsConsumed() throws Exception {
        try (UdpPeer bobsPhone = new UdpPeer()) {
            assertEquals(200, registerWithPassword(bob, "builder", "sip:bob@" + bobsPhone.hostPort(), node1, node2).status());
            String callId = "call-" + alice;
            SipText challenge = send(invite(uri(alice), uri(bob), callId), node1);
            assertEquals(407, challenge.status());
            assertTrue(bobsPhone.await(m -> true, Duration.ofMillis(300)).isEmpty(), "nothing reaches bob before the proof");

            phone.send(invite(uri(alice), uri(bob), callId, 2).with("Proxy-Authorization: " + answer(challenge, DigestAlgorithm.SHA_256, alice, "wonderland",
                            "INVITE", uri(bob))).text(), node2.sipAddress());

            Optional<SipText> got = bobsPhone.await(m -> !m.isResponse() && m.method().equals("INVITE"), Duration.ofSeconds(5));
            assertTrue(got.isPresent(), "caller got " + phone.received());
            SipText arrived = got.get();
            assertTrue(arrived.header("proxy-authorization").isEmpty(), "the credentials were for the cluster");
            assertTrue(arrived.header("record-route").orElse("").contains(";dt="), arrived.toString());
            bobsPhone.send(arrived.response(486, "Busy Here", "b1"), node2.sipAddress());
            assertEquals(486, phone.expectResponse("INVITE", 486).status());
        }
    }

    @Test
    void alicesCredentialsCannotSendFromBob() throws Exception {
        String callId = "spoof-" + alice;
        SipText challenge = send(invite(uri(bob), uri(alice), callId), node1);
        SipText r = send(invite(uri(bob), uri(alice), callId, 2).with("Proxy-Authorization: " + answer(challenge, DigestAlgorithm.SHA_256, alice, "wonderland",
                        "INVITE", uri(alice))), node1);

        assertEquals(403, r.status());
    }

    @Test
    void aStrangerMayCallALocalUserWithoutCredentials() throws Exception {
        try (UdpPeer bobsPhone = new UdpPeer()) {
            assertEquals(200, registerWithPassword(bob, "builder", "sip:bob@" + bobsPhone.hostPort(), node2, node1).status());
            phone.send(invite("sip:carol@elsewhere.test", uri(bob), "in-" + bob).text(), node1.sipAddress());

            SipText arrived = bobsPhone.expectRequest("INVITE");
            bobsPhone.send(arrived.response(486, "Busy Here", "b2"), node1.sipAddress());
            assertEquals(486, phone.expectResponse("INVITE", 486).status());
        }
    }

    @Test
    void unauthenticatedRequestsTowardsForeignTargetsGet403AndNothingIsSentThere() throws Exception {
        try (UdpPeer victim = new UdpPeer(); UdpPeer bobsPhone = new UdpPeer()) {
            assertEquals(200, registerWithPassword(bob, "builder", "sip:bob@" + bobsPhone.hostPort(), node1, node1).status());
            String foreign = "sip:premium@" + victim.hostPort();

            SipText direct = send(invite("sip:carol@elsewhere.test", foreign, "f1-" + alice), node1);
            SipText routed = send(invite("sip:carol@elsewhere.test", uri(bob), "f2-" + alice)
                    .with("Route: <sip:" + victim.hostPort() + ";lr>"), node2);
            SipText fromLocal = send(invite(uri(alice), foreign, "f3-" + alice), node1);

            assertEquals(403, direct.status());
            assertEquals("Relaying forbidden", direct.reason());
            assertEquals(403, routed.status());
            assertEquals(407, fromLocal.status());
            assertTrue(victim.await(m -> true, Duration.ofMillis(500)).isEmpty(), "the foreign host saw " + victim.received());
            assertTrue(bobsPhone.await(m -> true, Duration.ofMillis(100)).isEmpty(), "bob saw " + bobsPhone.received());
        }
    }

    @Test
    void anAuthenticatedUserMayCallAForeignDomain() throws Exception {
        try (UdpPeer elsewhere = new UdpPeer()) {
            String foreign = "sip:friend@" + elsewhere.hostPort();
            String callId = "out-" + alice;
            SipText challenge = send(invite(uri(alice), foreign, callId), node1);
            phone.send(invite(uri(alice), foreign, callId, 2).with("Proxy-Authorization: " + answer(challenge, DigestAlgorithm.SHA_256, alice, "wonderland",
                            "INVITE", foreign)).text(), node1.sipAddress());

            SipText arrived = elsewhere.expectRequest("INVITE");
            elsewhere.send(arrived.response(486, "Busy Here", "e1"), node1.sipAddress());
            assertEquals(486, phone.expectResponse("INVITE", 486).status());
        }
    }

    @Test
    void optionsForTheNodeItselfNeedNoCredentials() throws Exception {
        String self = "sip:" + node1.sipAddress();
        SipText r = send(RequestText.standard("OPTIONS", self, phone.hostPort(), uri(alice), self, "o-" + alice, 1), node1);
        assertEquals(200, r.status());
        assertFalse(r.header("www-authenticate").isPresent());
    }
}
