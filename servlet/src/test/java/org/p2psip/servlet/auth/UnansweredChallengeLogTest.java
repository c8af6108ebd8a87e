package org.p2psip.servlet.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import javax.sip.message.Request;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.p2psip.core.auth.DigestAlgorithm;
import org.p2psip.core.dht.ManualClock;
import org.p2psip.servlet.testing.Messages;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import gov.nist.javax.sip.message.SIPMessage;

class UnansweredChallengeLogTest {

    private final ManualClock clock = new ManualClock(Instant.parse("2026-11-30T12:00:00Z"));
    private final Deque<Runnable> timers = new ArrayDeque<>();
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(UnansweredChallengeLog.class);

    @BeforeEach
    void capture() {
        logged.start();
        logger.addAppender(logged);
    }

    @AfterEach
    void release() {
        logger.detachAppender(logged);
    }

    private UnansweredChallengeLog log(List<DigestAlgorithm> offered) {
        return new UnansweredChallengeLog(offered, a -> false, clock, timers::add);
    }

    private static Request register(String source, int port, String authorization) throws Exception {
        Request r = Messages.MESSAGES.createRequest("REGISTER sip:p2psip.test SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + source + ":" + port + ";branch=z9hG4bK1\r\nMax-Forwards: 70\r\n"
                + "To: <sip:alice@p2psip.test>\r\nFrom: <sip:alice@p2psip.test>;tag=1\r\nCall-ID: c1\r\n"
                + "CSeq: 1 REGISTER\r\nUser-Agent: baresip v1.0.0\r\n" + authorization + "Content-Length: 0\r\n\r\n");
        ((SIPMessage) r).setRemoteAddress(InetAddress.getByName(source));
        ((SIPMessage) r).setRemotePort(port);
        return r;
    }

    /** Runs the timers due, as the delayed executor would a second apart, {@code seconds} times. */
    private void runTimers(int seconds) {
        for (int i = 0; i < seconds && !timers.isEmpty(); i++) {
            clock.advance(Duration.ofSeconds(1));
            timers.poll().run();
        }
    }

    private List<String> warnings() {
        return logged.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void aPhoneThatNeverAnswersIsNamedWithTheLikelyCause() throws Exception {
        UnansweredChallengeLog log = log(List.of(DigestAlgorithm.SHA_256, DigestAlgorithm.SHA_512_256,
                DigestAlgorithm.MD5));
        log.challenged(register("127.0.0.1", 5062, ""), false);

        runTimers(10);

        assertEquals(1, warnings().size(), warnings().toString());
        String line = warnings().get(0);
        assertTrue(line.startsWith("127.0.0.1:5062 (baresip v1.0.0) was challenged for sip:alice@p2psip.test "
                + "(SHA-256, SHA-512-256, MD5 offered) and did not answer within 5 s"), line);
        assertTrue(line.contains("--digest-algorithms MD5"), line);
        assertTrue(timers.isEmpty(), "nothing left to watch, so no timer is armed");
    }

    @Test
    void aPhoneThatAnswersIsNotLogged() throws Exception {
        UnansweredChallengeLog log = log(List.of(DigestAlgorithm.MD5));
        log.challenged(register("127.0.0.1", 5062, ""), false);
        log.answered(register("127.0.0.1", 5062, "Authorization: Digest username=\"alice\"\r\n"));

        runTimers(10);

        assertEquals(List.of(), warnings());
    }

    @Test
    void theClustersOwnWarmUpIsNotWatched() throws Exception {
        UnansweredChallengeLog log = log(List.of(DigestAlgorithm.MD5));
        Request warmUp = register("127.0.0.1", 5062, "");
        warmUp.setHeader(Messages.HEADERS.createHeader("User-Agent", UnansweredChallengeLog.WARM_UP_USER_AGENT));
        log.challenged(warmUp, false);

        runTimers(10);

        assertEquals(List.of(), warnings());
    }

    @Test
    void oneLinePerSourceWhileItKeepsFailing() throws Exception {
        UnansweredChallengeLog log = log(List.of(DigestAlgorithm.MD5));
        for (int i = 0; i < 3; i++) {
            log.challenged(register("127.0.0.1", 5062, ""), false);
            runTimers(10);
        }

        assertEquals(1, warnings().size(), warnings().toString());
        assertTrue(warnings().get(0).endsWith("it has no password for this user, or answers none of these algorithms"),
                warnings().get(0));
    }
}
