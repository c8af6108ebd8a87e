package org.p2psip.servlet.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.p2psip.core.net.HostPort;
import org.p2psip.core.location.RegistrarPolicy;
import org.p2psip.servlet.testing.RequestText;
import org.p2psip.servlet.testing.SipText;
import org.p2psip.servlet.testing.SlowDhtProvider;
import org.p2psip.servlet.testing.UdpPeer;

/**
 * A node whose DHT operations stand in a queue (every one takes 700 ms,
 * more than T1) refuses new REGISTERs with 503
 * and a Retry-After instead of starting more DHT work, while every request
 * still gets a final answer. Its SIP queue alone stays short, so the gate
 * must see the DHT's delay to refuse anything.
 */
class DhtOverloadIntegrationTest {

    private static final int REGISTERS = 100;
    private static FrontNode node;

    @BeforeAll
    static void startNode() throws Exception {
        node = FrontNode.start(new NodeSettings(new HostPort("127.0.0.1", 0), SlowDhtProvider.NAME,
                Optional.empty(), List.of(), 1, Map.of(), RegistrarPolicy.DEFAULT, Duration.ofSeconds(5),
                NodeSettings.DEFAULT_SIP_THREADS, Clock.systemUTC(), TrustSettings.open("example.com"),
                ProtectionSettings.DEFAULT, Optional.empty(), Optional.empty(), Optional.empty()));
    }

    @AfterAll
    static void stopNode() {
        node.close();
    }

    @Test
    void registersGet503WithRetryAfterOnceTheDhtHasAStandingDelay() throws Exception {
        ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor();
        try (UdpPeer ua = new UdpPeer()) {
            AtomicInteger sent = new AtomicInteger();
            // One REGISTER every 20 ms for 2 s: DHT operations complete continuously from 700 ms on.
            pacer.scheduleAtFixedRate(() -> {
                int i = sent.getAndIncrement();
                if (i >= REGISTERS) {
                    return;
                }
                String aor = "sip:load-" + i + "-" + UUID.randomUUID() + "@example.com";
                try {
                    ua.send(RequestText.standard("REGISTER", "sip:example.com", ua.hostPort(), aor, aor,
                            "o-" + UUID.randomUUID(), 1).with("Contact: <sip:load@192.0.2.1>").text(),
                            node.sipAddress());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, 0, 20, TimeUnit.MILLISECONDS);

            List<SipText> finals = new ArrayList<>();
            for (int i = 0; i < REGISTERS; i++) {
                Optional<SipText> answer = ua.await(m -> m.isResponse() && m.method().equals("REGISTER")
                        && m.status() >= 200, Duration.ofSeconds(10));
                assertTrue(answer.isPresent(), "every REGISTER is answered; " + finals.size() + " were: "
                        + ua.received());
                finals.add(answer.get());
            }
            long ok = finals.stream().filter(r -> r.status() == 200).count();
            List<SipText> refused = finals.stream().filter(r -> r.status() == 503).toList();
            assertEquals(REGISTERS, ok + refused.size(), "only 200 and 503: " + ua.received());
            assertTrue(ok > 0, "before the DHT's delay shows, REGISTERs are admitted");
            assertTrue(refused.size() > 0, "once it shows, new REGISTERs are refused: " + ua.received());
            assertTrue(refused.get(0).header("Retry-After").isPresent(), refused.get(0).toString());
        } finally {
            pacer.shutdownNow();
        }
    }
}
