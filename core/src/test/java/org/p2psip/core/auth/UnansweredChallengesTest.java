package org.p2psip.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

class UnansweredChallengesTest {

    private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");
    private static final InetSocketAddress PHONE = new InetSocketAddress("127.0.0.1", 5062);
    private static final InetSocketAddress OTHER = new InetSocketAddress("127.0.0.2", 5062);

    private final UnansweredChallenges watch = new UnansweredChallenges(Duration.ofSeconds(5), 2);

    @Test
    void aChallengeUnansweredPastThePatienceIsOverdueOnce() {
        watch.challenged(PHONE, "sip:alice@p2psip.test", "baresip v1.0.0", T0);

        assertTrue(watch.overdue(T0.plusSeconds(4)).isEmpty(), "not yet");
        List<UnansweredChallenges.Pending> due = watch.overdue(T0.plusSeconds(5));
        assertEquals(List.of(new UnansweredChallenges.Pending(PHONE, "sip:alice@p2psip.test", "baresip v1.0.0", T0)),
                due);
        assertTrue(watch.overdue(T0.plusSeconds(60)).isEmpty(), "reported once");
    }

    @Test
    void credentialsFromTheSourceClearItsChallenge() {
        watch.challenged(PHONE, "sip:alice@p2psip.test", "", T0);
        watch.answered(new InetSocketAddress("127.0.0.1", 5080));

        assertTrue(watch.overdue(T0.plusSeconds(10)).isEmpty());
        assertEquals(0, watch.watched());
    }

    @Test
    void askingAgainWithoutCredentialsKeepsTheFirstChallengesTime() {
        watch.challenged(PHONE, "sip:alice@p2psip.test", "", T0);
        watch.challenged(PHONE, "sip:alice@p2psip.test", "", T0.plusSeconds(4));

        assertEquals(1, watch.overdue(T0.plusSeconds(5)).size());
    }

    @Test
    void sourcesBeyondTheCapacityAreNotWatched() {
        watch.challenged(PHONE, "sip:a@d", "", T0);
        watch.challenged(OTHER, "sip:b@d", "", T0);
        watch.challenged(new InetSocketAddress("127.0.0.3", 5060), "sip:c@d", "", T0);

        assertEquals(2, watch.watched());
        assertEquals(List.of(PHONE, OTHER),
                watch.overdue(T0.plusSeconds(5)).stream().map(UnansweredChallenges.Pending::source).toList());
    }

    @Test
    void onlyTheDueAreTakenOldestFirst() {
        watch.challenged(PHONE, "sip:a@d", "", T0);
        watch.challenged(OTHER, "sip:b@d", "", T0.plusSeconds(3));

        assertEquals(List.of(PHONE),
                watch.overdue(T0.plusSeconds(6)).stream().map(UnansweredChallenges.Pending::source).toList());
        assertEquals(1, watch.watched());
    }

    @Test
    void refusesNonsenseSettings() {
        assertThrows(IllegalArgumentException.class, () -> new UnansweredChallenges(Duration.ZERO, 1));
        assertThrows(IllegalArgumentException.class, () -> new UnansweredChallenges(Duration.ofSeconds(1), 0));
    }
}
