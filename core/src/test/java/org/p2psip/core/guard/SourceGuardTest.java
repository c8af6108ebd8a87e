package org.p2psip.core.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Set;

import org.junit.jupiter.api.Test;

class SourceGuardTest {

    private static final long MS = 1_000_000L;
    private static final InetAddress FLOODER = address("192.0.2.1");
    private static final InetAddress PHONE = address("192.0.2.2");
    private static final InetAddress BALANCER = address("192.0.2.3");
    private static final SourceLimits TEN_PER_SECOND = new SourceLimits(10, 5, Duration.ofSeconds(30), 100);

    @Test
    void burstIsAdmittedThenTheSourceIsBanned() {
        SourceGuard guard = new SourceGuard(TEN_PER_SECOND, Set.of());
        for (int i = 0; i < 5; i++) {
            assertEquals(SourceVerdict.ADMIT, guard.admit(FLOODER, 0));
        }
        assertEquals(SourceVerdict.BANNED_NOW, guard.admit(FLOODER, 0));
        assertEquals(SourceVerdict.BANNED, guard.admit(FLOODER, 1_000 * MS));
        assertEquals(1, guard.bans());
        assertEquals(2, guard.dropped());
    }

    @Test
    void aSourceWithinItsRateIsNeverBanned() {
        SourceGuard guard = new SourceGuard(TEN_PER_SECOND, Set.of());
        for (int i = 0; i < 1_000; i++) {
            assertEquals(SourceVerdict.ADMIT, guard.admit(PHONE, i * 100 * MS), "message " + i);
        }
    }

    @Test
    void aBanEndsAfterTheBanTimeWithAFullBucket() {
        SourceGuard guard = new SourceGuard(TEN_PER_SECOND, Set.of());
        for (int i = 0; i < 6; i++) {
            guard.admit(FLOODER, 0);
        }
        assertTrue(guard.banned(FLOODER, 29_999 * MS));
        assertEquals(SourceVerdict.BANNED, guard.admit(FLOODER, 29_999 * MS));
        assertFalse(guard.banned(FLOODER, 30_000 * MS));
        for (int i = 0; i < 5; i++) {
            assertEquals(SourceVerdict.ADMIT, guard.admit(FLOODER, 30_000 * MS));
        }
    }

    @Test
    void oneSourcesBanDoesNotTouchAnother() {
        SourceGuard guard = new SourceGuard(TEN_PER_SECOND, Set.of());
        for (int i = 0; i < 100; i++) {
            guard.admit(FLOODER, i * MS);
        }
        assertEquals(SourceVerdict.ADMIT, guard.admit(PHONE, 100 * MS));
    }

    @Test
    void trustedSourcesAreNeverLimited() {
        SourceGuard guard = new SourceGuard(TEN_PER_SECOND, Set.of(BALANCER));
        for (int i = 0; i < 10_000; i++) {
            assertEquals(SourceVerdict.ADMIT, guard.admit(BALANCER, 0));
        }
        assertEquals(0, guard.trackedSources());
    }

    @Test
    void aGuardThatIsOffAdmitsEverything() {
        SourceGuard guard = SourceGuard.off();
        for (int i = 0; i < 10_000; i++) {
            assertEquals(SourceVerdict.ADMIT, guard.admit(FLOODER, 0));
        }
    }

    @Test
    void aFullTableSweepsIdleSourcesAndNeverEvictsABan() {
        SourceLimits two = new SourceLimits(10, 5, Duration.ofSeconds(30), 2);
        SourceGuard guard = new SourceGuard(two, Set.of());
        for (int i = 0; i < 6; i++) {
            guard.admit(FLOODER, 0);
        }
        guard.admit(PHONE, 0);
        // full: a third source is admitted untracked, the ban stays
        assertEquals(SourceVerdict.ADMIT, guard.admit(BALANCER, 0));
        assertEquals(2, guard.trackedSources());
        assertTrue(guard.banned(FLOODER, MS));
        // once the phone's bucket has refilled it is swept to make room
        assertEquals(SourceVerdict.ADMIT, guard.admit(BALANCER, 1_000 * MS));
        assertTrue(guard.banned(FLOODER, 1_000 * MS));
        assertEquals(2, guard.trackedSources());
    }

    @Test
    void malformedInputExhaustsTheBucketFaster() {
        SourceGuard guard = new SourceGuard(new SourceLimits(1_000, 120, Duration.ofSeconds(30), 100), Set.of());
        assertEquals(SourceVerdict.ADMIT, guard.admit(FLOODER, 0));
        guard.penalize(FLOODER, 0);
        assertEquals(SourceVerdict.ADMIT, guard.admit(FLOODER, 0));
        guard.penalize(FLOODER, 0);
        // 120 - 2 messages - 2 x 50 leaves 18 tokens: the next 18 pass, then the ban
        for (int i = 0; i < 18; i++) {
            assertEquals(SourceVerdict.ADMIT, guard.admit(FLOODER, 0), "message " + i);
        }
        assertEquals(SourceVerdict.BANNED_NOW, guard.admit(FLOODER, 0));
    }

    @Test
    void trustedSourcesAreNeverPenalized() {
        SourceGuard guard = new SourceGuard(TEN_PER_SECOND, Set.of(BALANCER));
        for (int i = 0; i < 100; i++) {
            guard.penalize(BALANCER, 0);
        }
        assertEquals(SourceVerdict.ADMIT, guard.admit(BALANCER, 0));
    }

    @Test
    void limitsAreValidated() {
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new SourceLimits(-1, 1, Duration.ZERO, 1));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new SourceLimits(10, 0, Duration.ZERO, 1));
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
