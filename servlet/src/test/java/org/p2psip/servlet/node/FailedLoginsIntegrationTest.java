package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.DigestChallenge;
import org.p2psip.core.auth.LoginFailures;
import org.p2psip.core.auth.UserCredentials;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;
import org.p2psip.servlet.auth.FailedLogins;
import org.p2psip.servlet.testing.DigestAnswers;
import org.p2psip.servlet.testing.SharedLocalDhtProvider;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

/**
 * An online guesser: 3,000 wrong passwords for one user from one address,
 * each sent once its answer came. After the threshold its answers are
 * refused unheard (403), one WARN names the address, and the user's own
 * phone at another address still signs in with the right password.
 */
class FailedLoginsIntegrationTest {

    private static final String DOMAIN = "p2psip.test";
    private static final int GUESSES = 3_000;

    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(FailedLogins.class);
    private FrontNode node;

    @BeforeEach
    void start() throws Exception {
        logged.start();
        logger.addAppender(logged);
        node = FrontNode.start(new NodeSettings(new HostPort("127.0.0.1", 0), SharedLocalDhtProvider.NAME,
                Optional.empty(), List.of(), 1, Map.of("store", "failed-logins-" + UUID.randomUUID()),
                RegistrarPolicy.DEFAULT, NodeSettings.DEFAULT_DHT_TIMEOUT, NodeSettings.DEFAULT_SIP_THREADS,
                Clock.systemUTC(), TrustSettings.DEFAULT.withDomains(List.of(DOMAIN)).withClusterSecret("fl-secret"),
                ProtectionSettings.DEFAULT, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()));
        node.credentials().put(UserCredentials.fromPassword(AddressOfRecord.parse("sip:bob@" + DOMAIN),
                "right-password")).join();
    }

    @AfterEach
    void stop() {
        logger.detachAppender(logged);
        if (node != null) {
            node.close();
        }
    }

    private RequestText register(UdpPeer from, String callId, long cseq) {
        return RequestText.standard("REGISTER", "sip:" + DOMAIN, from.hostPort(), "sip:bob@" + DOMAIN,
                "sip:bob@" + DOMAIN, callId, cseq).with("Contact: <sip:bob@" + from.hostPort() + ">");
    }

    private SipText answerTo(UdpPeer from, String callId, long cseq) throws Exception {
        return from.expect(m -> m.isResponse() && m.status() >= 200 && m.header("cseq").orElse("")
                .startsWith(cseq + " ") && m.header("call-id").orElse("").equals(callId), "the answer to " + cseq);
    }

    @Test
    void aGuesserIsRefusedAfterTheThresholdWhileTheUserSignsInFromElsewhere() throws Exception {
        try (UdpPeer guesser = new UdpPeer(); UdpPeer phone = new UdpPeer(InetAddress.getByName("127.0.0.2"))) {
            String callId = "guess-" + UUID.randomUUID();
            guesser.send(register(guesser, callId, 1).text(), node.sipAddress());
            DigestChallenge challenge = DigestAnswers.challengeFor(answerTo(guesser, callId, 1), DigestAlgorithm.SHA_256);
            int challenged = 0;
            int refused = 0;
            String refusal = "";
            Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
            for (int i = 1; i <= GUESSES && Instant.now().isBefore(deadline); i++) {
                guesser.send(register(guesser, callId, 1 + i).with("Authorization: " + DigestAnswers.answer(challenge,
                        "bob", "guess-" + i, "REGISTER", "sip:" + DOMAIN, i)).text(), node.sipAddress());
                SipText answer = answerTo(guesser, callId, 1 + i);
                if (answer.status() == 401) {
                    challenged++;
                } else if (answer.status() == 403) {
                    refused++;
                    refusal = answer.firstLine();
                }
            }

            System.out.printf("failed logins: %d of %d guesses heard out (401), %d refused (403)%n", challenged,
                    GUESSES, refused);
            assertEquals(GUESSES, challenged + refused, "every guess was answered 401 or 403");
            assertTrue(challenged >= LoginFailures.THRESHOLD - 1 && challenged < 60,
                    challenged + " guesses were heard out; " + refused + " refused");
            assertTrue(refusal.contains("too many failed logins"), refusal);
            List<String> warnings = logged.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
            assertEquals(1, warnings.size(), warnings.toString());
            assertTrue(warnings.get(0).contains("sip:bob@" + DOMAIN) && warnings.get(0).contains("from 127.0.0.1"),
                    warnings.get(0));

            String phoneCall = "phone-" + UUID.randomUUID();
            phone.send(register(phone, phoneCall, 1).text(), node.sipAddress());
            DigestChallenge fresh = DigestAnswers.challengeFor(answerTo(phone, phoneCall, 1), DigestAlgorithm.SHA_256);
            phone.send(register(phone, phoneCall, 2).with("Authorization: " + DigestAnswers.answer(fresh, "bob",
                    "right-password", "REGISTER", "sip:" + DOMAIN, 1)).text(), node.sipAddress());
            assertEquals(200, answerTo(phone, phoneCall, 2).status(), "bob's own phone, at another address");

            guesser.send(register(guesser, callId, GUESSES + 10).with("Authorization: " + DigestAnswers.answer(
                    challenge, "bob", "right-password", "REGISTER", "sip:" + DOMAIN, GUESSES + 10)).text(),
                    node.sipAddress());
            assertEquals(403, answerTo(guesser, callId, GUESSES + 10).status(),
                    "the guesser's address stays refused, even with the right password");
        }
    }
}
