package org.p2psip.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class LoginFailuresTest {

    private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");

    private static LoginFailures failures(int n) {
        Optional<LoginFailures> f = Optional.empty();
        for (int i = 0; i < n; i++) {
            f = Optional.of(LoginFailures.after(f, T0.plusSeconds(i)));
        }
        return f.orElseThrow();
    }

    @Test
    void belowTheThresholdNothingIsRefused() {
        assertEquals(Optional.empty(), failures(LoginFailures.THRESHOLD - 1).refusedUntil());
    }

    @Test
    void fromTheThresholdTheWaitStartsAtOneSecondAndDoubles() {
        LoginFailures at = failures(LoginFailures.THRESHOLD);
        LoginFailures next = failures(LoginFailures.THRESHOLD + 3);

        assertEquals(Optional.of(at.last().plusSeconds(1)), at.refusedUntil());
        assertEquals(Optional.of(next.last().plusSeconds(8)), next.refusedUntil());
        assertTrue(at.reachedThreshold());
        assertFalse(next.reachedThreshold());
    }

    @Test
    void theWaitStopsGrowingAtTheMaximum() {
        LoginFailures many = failures(LoginFailures.THRESHOLD + 40);

        assertEquals(Optional.of(many.last().plus(LoginFailures.MAX_BACKOFF)), many.refusedUntil());
    }

    @Test
    void aQuietSpellStartsTheCountAgain() {
        LoginFailures f = failures(LoginFailures.THRESHOLD + 2);

        LoginFailures later = LoginFailures.after(Optional.of(f), f.last().plus(LoginFailures.QUIET).plusSeconds(1));

        assertEquals(1, later.count());
        assertEquals(Optional.empty(), later.refusedUntil());
    }

    @Test
    void encodesAndDecodes() {
        LoginFailures f = failures(12);

        assertEquals(Optional.of(f), LoginFailures.decode(f.encode()));
        assertEquals(Optional.empty(), LoginFailures.decode("x y".getBytes()));
        assertEquals(Duration.ofMinutes(30), Duration.between(f.last(), f.keepUntil()));
    }
}
