package org.p2psip.core.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class HandOverPacingTest {

    private static final long MS = 1_000_000L;
    private final SchedulingLag lag = new SchedulingLag(50 * MS, 60_000 * MS);
    private final HandOverPacing pacing = new HandOverPacing(lag, Duration.ofSeconds(5), Duration.ofMillis(500));

    @Test
    void noPauseWhileTheNodeKeepsUp() {
        lag.due(100 * MS);
        lag.ran(120 * MS);
        assertEquals(Duration.ZERO, pacing.pauseAt(1_000 * MS));
    }

    @Test
    void thePauseFollowsTheLagUpToItsCap() {
        lag.due(100 * MS);
        lag.ran(400 * MS);
        assertEquals(Duration.ofMillis(300), pacing.pauseAt(1_000 * MS));
        lag.due(1_000 * MS);
        lag.ran(3_000 * MS);
        assertEquals(Duration.ofMillis(500), pacing.pauseAt(3_000 * MS));
    }

    @Test
    void aSpellOfLagLongOverNoLongerSlowsTheHandOver() {
        lag.due(100 * MS);
        lag.ran(400 * MS);
        assertEquals(Duration.ZERO, pacing.pauseAt(6_000 * MS));
    }

    @Test
    void aNodeThatMeasuresNoLagNeverPauses() {
        assertEquals(Duration.ZERO, HandOverPacing.NONE.pauseAt(0));
    }
}
