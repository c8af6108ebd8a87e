package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.p2psip.core.guard.AdaptiveConcurrencyLimit;
import org.p2psip.core.guard.SourceLimits;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.testing.RequestText;
import org.p2psip.core.testing.SipText;
import org.p2psip.core.testing.UdpPeer;
import org.p2psip.servlet.testing.HeldDhtProvider;

/**
 * A node whose DHT answers slowly sheds the REGISTERs beyond its DHT
 * admission limit at once with 503 and Retry-After, and answers the ones
 * within it 200 once the DHT does, and 500 when it fails (issue 33,
 * "shed, never collapse": every request gets a final answer).
 * The DHT is held shut while the requests arrive, so exactly the requests
 * in flight are known; each request is sent once and counted.
 */
class DhtAdmissionIntegrationTest {

    private static final int INITIAL_LIMIT = AdaptiveConcurrencyLimit.Settings.DEFAULT.initial();
    private static final Duration RETRY_AFTER = Duration.ofSeconds(7);
    private static final Duration DEADLINE = Duration.ofSeconds(10);

    private FrontNode node;
    private HeldDhtProvider.Valve valve;

    private void startNode() throws Exception {
        String name = UUID.randomUUID().toString();
        valve = HeldDhtProvider.valve(name);
        // No per-source limit (one test address sends everything) and an SIP queue gate out of the way, so
        // every 503 here is the DHT admission's.
        ProtectionSettings protection = ProtectionSettings.DEFAULT.withSources(SourceLimits.OFF, Set.of())
                .withOverload(Duration.ofSeconds(10), 20_000, RETRY_AFTER);
        node = FrontNode.start(new NodeSettings(new HostPort("127.0.0.1", 0), HeldDhtProvider.NAME,
                Optional.empty(), List.of(), 1, Map.of("valve", name), RegistrarPolicy.DEFAULT,
                Duration.ofSeconds(20), NodeSettings.DEFAULT_SIP_THREADS, Clock.systemUTC(),
                TrustSettings.open("example.com"), protection, Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty()));
    }

    @AfterEach
    void stopNode() {
        if (valve != null) {
            valve.open();
        }
        if (node != null) {
            node.close();
        }
    }

    private void register(UdpPeer ua, int i) throws Exception {
        String aor = "sip:held-" + i + "-" + UUID.randomUUID() + "@example.com";
        ua.send(RequestText.standard("REGISTER", "sip:example.com", ua.hostPort(), aor, aor,
                "held-" + UUID.randomUUID(), 1).with("Contact: <sip:held-" + i + "@" + ua.hostPort() + ">")
                .with("Expires: 600").text(), node.sipAddress());
    }

    private static List<SipText> responses(UdpPeer ua, int count) throws InterruptedException {
        List<SipText> got = new ArrayList<>();
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (got.size() < count) {
            long left = deadline - System.nanoTime();
            Optional<SipText> next = left <= 0 ? Optional.empty()
                    : ua.await(m -> m.isResponse() && m.status() >= 200, Duration.ofNanos(left));
            if (next.isEmpty()) {
                throw new AssertionError(got.size() + " final responses of " + count + " within " + DEADLINE
                        + "; received: " + ua.received());
            }
            got.add(next.get());
        }
        return got;
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + DEADLINE + ": " + what);
            }
            Thread.sleep(5);
        }
    }

    private static long count(List<SipText> responses, int status) {
        return responses.stream().filter(r -> r.status() == status).count();
    }

    @Test
    void registersWithinTheLimitAllWaitForTheDhtAndAreAnswered200() throws Exception {
        startNode();
        int within = AdaptiveConcurrencyLimit.Settings.DEFAULT.floor();
        valve.close();
        try (UdpPeer ua = new UdpPeer()) {
            for (int i = 0; i < within; i++) {
                register(ua, i);
            }
            awaitTrue(() -> valve.waiting() == within, within + " REGISTERs waiting on the DHT at once");
            assertTrue(ua.await(m -> m.isResponse() && m.status() >= 200, Duration.ZERO).isEmpty(),
                    "answered before the DHT answered: " + ua.received());

            valve.open();
            List<SipText> answers = responses(ua, within);
            assertEquals(within, count(answers, 200), "answers: " + ua.received());
        }
    }

    @Test
    void registersBeyondTheLimitAreAnswered503WithRetryAfterWithoutWaitingForTheDht() throws Exception {
        startNode();
        int beyond = 16;
        valve.close();
        try (UdpPeer ua = new UdpPeer()) {
            long sent = System.nanoTime();
            for (int i = 0; i < INITIAL_LIMIT + beyond; i++) {
                register(ua, i);
            }
            List<SipText> refused = responses(ua, beyond);
            long refusedWithin = System.nanoTime() - sent;
            awaitTrue(() -> valve.waiting() == INITIAL_LIMIT, "the admitted REGISTERs all waiting on the DHT");
            for (SipText r : refused) {
                assertEquals(503, r.status(), r.firstLine());
                assertEquals("Location service overloaded", r.reason());
                assertEquals(Optional.of(Long.toString(RETRY_AFTER.toSeconds())), r.header("retry-after"));
            }
            System.out.printf("%d REGISTERs beyond the DHT admission limit answered 503 within %d ms%n", beyond,
                    refusedWithin / 1_000_000);

            valve.open();
            List<SipText> admitted = responses(ua, INITIAL_LIMIT);
            assertEquals(INITIAL_LIMIT, count(admitted, 200), "answers: " + ua.received());
            assertTrue(ua.await(m -> m.isResponse() && m.status() >= 200, Duration.ofMillis(200)).isEmpty(),
                    "one answer per REGISTER: " + ua.received());
        }
    }

    @Test
    void registersWhoseDhtOperationsFailAreAnswered500AndFreeTheirPlaces() throws Exception {
        startNode();
        valve.close();
        try (UdpPeer ua = new UdpPeer()) {
            for (int i = 0; i < INITIAL_LIMIT; i++) {
                register(ua, i);
            }
            awaitTrue(() -> valve.waiting() == INITIAL_LIMIT, "the REGISTERs all waiting on the DHT");

            valve.fail(new IllegalStateException("overlay unreachable"));
            List<SipText> failed = responses(ua, INITIAL_LIMIT);
            assertEquals(INITIAL_LIMIT, count(failed, 500), "answers: " + ua.received());
            assertEquals(0, valve.waiting());

            for (int i = 0; i < INITIAL_LIMIT; i++) {
                register(ua, INITIAL_LIMIT + i);
            }
            List<SipText> later = responses(ua, INITIAL_LIMIT);
            assertEquals(INITIAL_LIMIT, count(later, 200), "a failed operation keeps no place: " + ua.received());
        }
    }
}
