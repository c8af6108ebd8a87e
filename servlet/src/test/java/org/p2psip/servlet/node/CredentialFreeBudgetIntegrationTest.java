package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.auth.DigestChallenge;
import org.p2psip.core.auth.UserCredentials;
import org.p2psip.core.location.AddressOfRecord;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;
import org.p2psip.servlet.stack.EdgeGuards;
import org.p2psip.servlet.testing.DigestAnswers;
import org.p2psip.servlet.testing.SharedLocalDhtProvider;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

/**
 * A distributed REGISTER flood on real sockets: ten addresses, each far
 * under the per-source limit, send 500 REGISTERs without credentials at
 * once to a node whose budget for them is 20 a second. About the burst is
 * challenged and the rest dropped unanswered, one WARN says so, and a phone
 * that already holds a challenge still registers with its credentials and
 * gets its OPTIONS answered meanwhile.
 */
class CredentialFreeBudgetIntegrationTest {

    private static final String DOMAIN = "p2psip.test";
    private static final int RATE = 20;
    private static final int SOURCES = 10;
    private static final int PER_SOURCE = 50;

    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(EdgeGuards.class);
    private FrontNode node;

    @BeforeEach
    void start() throws Exception {
        logged.start();
        logger.addAppender(logged);
        node = FrontNode.start(new NodeSettings(new HostPort("127.0.0.1", 0), SharedLocalDhtProvider.NAME,
                Optional.empty(), List.of(), 1, Map.of("store", "budget-" + UUID.randomUUID()),
                RegistrarPolicy.DEFAULT, NodeSettings.DEFAULT_DHT_TIMEOUT, NodeSettings.DEFAULT_SIP_THREADS,
                Clock.systemUTC(), TrustSettings.DEFAULT.withDomains(List.of(DOMAIN)).withClusterSecret("b-secret"),
                ProtectionSettings.DEFAULT.withUnauthenticatedRate(RATE), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty()));
        node.credentials().put(UserCredentials.fromPassword(AddressOfRecord.parse("sip:bob@" + DOMAIN),
                "bobs-password")).join();
    }

    @AfterEach
    void stop() {
        logger.detachAppender(logged);
        if (node != null) {
            node.close();
        }
    }

    private RequestText register(UdpPeer from, String user, String callId, long cseq) {
        return RequestText.standard("REGISTER", "sip:" + DOMAIN, from.hostPort(), "sip:" + user + "@" + DOMAIN,
                "sip:" + user + "@" + DOMAIN, callId, cseq).with("Contact: <sip:" + user + "@" + from.hostPort() + ">");
    }

    private static SipText answerTo(UdpPeer from, String callId, long cseq) throws Exception {
        return from.expect(m -> m.isResponse() && m.status() >= 200 && m.header("cseq").orElse("")
                .startsWith(cseq + " ") && m.header("call-id").orElse("").equals(callId), "the answer to " + cseq);
    }

    @Test
    void aFloodFromManySourcesIsCutToTheBudgetWhilePhonesWithCredentialsAreServed() throws Exception {
        List<UdpPeer> flooders = new ArrayList<>();
        try (UdpPeer phone = new UdpPeer(InetAddress.getByName("127.0.0.2"))) {
            String phoneCall = "phone-" + UUID.randomUUID();
            phone.send(register(phone, "bob", phoneCall, 1).text(), node.sipAddress());
            DigestChallenge challenge = DigestAnswers.challengeFor(answerTo(phone, phoneCall, 1),
                    DigestAlgorithm.SHA_256);

            for (int s = 0; s < SOURCES; s++) {
                flooders.add(new UdpPeer(InetAddress.getByName("127.0.0." + (30 + s))));
            }
            long started = System.nanoTime();
            for (int i = 0; i < PER_SOURCE; i++) {
                for (UdpPeer flooder : flooders) {
                    flooder.send(register(flooder, "f" + i, "flood-" + UUID.randomUUID(), 1).text(),
                            node.sipAddress());
                }
            }
            double sendingSeconds = (System.nanoTime() - started) / 1e9;

            phone.send(RequestText.standard("OPTIONS", "sip:" + node.sipAddress(), phone.hostPort(),
                    "sip:bob@" + DOMAIN, "sip:" + node.sipAddress(), "ping-" + UUID.randomUUID(), 1).text(),
                    node.sipAddress());
            assertEquals(200, phone.expectResponse("OPTIONS", 200).status(), "a keep-alive is not budgeted");
            phone.send(register(phone, "bob", phoneCall, 2).with("Authorization: " + DigestAnswers.answer(challenge,
                    "bob", "bobs-password", "REGISTER", "sip:" + DOMAIN, 1)).text(), node.sipAddress());
            assertEquals(200, answerTo(phone, phoneCall, 2).status(), "a REGISTER with credentials is not either");

            // Whatever is still to come arrives well within a second of the last send.
            for (UdpPeer flooder : flooders) {
                flooder.await(m -> false, Duration.ofMillis(100));
            }
            long challenged = flooders.stream().mapToLong(f -> f.received().stream()
                    .filter(m -> m.startsWith("SIP/2.0 401 ")).count()).sum();
            long dropped = node.edgeGuards().credentialFreeDropped();
            System.out.printf("credential-free budget: %d of %d flood REGISTERs challenged, %d dropped (%.2f s)%n",
                    challenged, SOURCES * PER_SOURCE, dropped, sendingSeconds);
            long ceiling = 2L * RATE + (long) Math.ceil(RATE * (sendingSeconds + 2));
            assertTrue(challenged >= 2L * RATE - 1 && challenged <= ceiling,
                    challenged + " challenged, expected the burst of " + 2 * RATE + " and at most " + ceiling);
            assertEquals(SOURCES * PER_SOURCE, challenged + dropped, "each one either challenged or dropped");
            List<String> warnings = logged.list.stream().map(ILoggingEvent::getFormattedMessage)
                    .filter(m -> m.contains("without credentials")).toList();
            assertEquals(1, warnings.size(), warnings.toString());
            assertTrue(warnings.get(0).contains("--unauthenticated-rate"), warnings.get(0));
        } finally {
            for (UdpPeer flooder : flooders) {
                flooder.close();
            }
        }
    }
}
