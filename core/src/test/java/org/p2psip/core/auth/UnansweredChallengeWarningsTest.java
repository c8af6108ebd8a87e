package org.p2psip.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.p2psip.core.dht.ManualClock;
import org.slf4j.Logger;

class UnansweredChallengeWarningsTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-03T12:00:00Z"));
    private final Deque<Runnable> timers = new ArrayDeque<>();
    private final List<String> warned = new ArrayList<>();
    private final Logger log = (Logger) Proxy.newProxyInstance(Logger.class.getClassLoader(),
            new Class<?>[] {Logger.class}, (proxy, method, args) -> {
                if (method.getName().equals("warn") && args.length == 1) {
                    warned.add((String) args[0]);
                }
                return method.getReturnType() == boolean.class ? Boolean.TRUE : null;
            });
    private final UnansweredChallengeWarnings warnings = new UnansweredChallengeWarnings(
            List.of(DigestAlgorithm.SHA_256, DigestAlgorithm.MD5), clock, timers::add, log);
    private final InetSocketAddress phone = new InetSocketAddress("192.0.2.7", 5060);

    private void runTimers(int seconds) {
        for (int i = 0; i < seconds && !timers.isEmpty(); i++) {
            clock.advance(Duration.ofSeconds(1));
            timers.poll().run();
        }
    }

    @Test
    void whatAClientWroteIsEscapedAndCutInTheLine() {
        warnings.challenged(phone, "sip:alice@example.com", "evil\u001b[31m phone " + "x".repeat(200));

        runTimers(10);

        assertEquals(1, warned.size(), warned.toString());
        String line = warned.get(0);
        assertTrue(line.startsWith("192.0.2.7:5060 (evil\\x1b[31m phone xxx"), line);
        assertTrue(line.contains("x...) was challenged for sip:alice@example.com (SHA-256, MD5 offered)"), line);
        assertTrue(line.indexOf('\u001b') < 0, "no raw escape sequence reaches the log");
    }

    @Test
    void aClientThatAnswersAndTheWarmUpAreNotReported() {
        warnings.challenged(phone, "sip:alice@example.com", "baresip");
        warnings.answered(phone);
        warnings.challenged(new InetSocketAddress("192.0.2.8", 5060), "sip:bob@example.com",
                UnansweredChallengeWarnings.WARM_UP_USER_AGENT);

        runTimers(10);

        assertEquals(List.of(), warned);
    }
}
