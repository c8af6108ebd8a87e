package org.p2psip.core.overlay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.p2psip.core.overlay.simulated.VirtualExecutor;
import org.p2psip.core.overlay.simulated.VirtualTime;

class SchedulingLagTest {

    private static final long MS = 1_000_000L;
    private final SchedulingLag lag = new SchedulingLag(50 * MS, 10_000 * MS);

    @Test
    void aTickOnTimeOrWithinTheToleranceIsNoLag() {
        lag.due(100 * MS);
        lag.ran(140 * MS);
        assertEquals(0, lag.behindNanos(0, 1_000 * MS));
        assertEquals(0, lag.recentLagNanos(1_000 * MS, 10_000 * MS));
    }

    @Test
    void aLateTickRecordsTheSpanItWasDueButWaited() {
        lag.due(100 * MS);
        lag.ran(700 * MS);
        assertEquals(600 * MS, lag.behindNanos(0, 1_000 * MS));
        assertEquals(200 * MS, lag.behindNanos(500 * MS, 1_000 * MS), "only the part inside the interval");
        assertEquals(0, lag.behindNanos(700 * MS, 2_000 * MS));
        assertEquals(600 * MS, lag.recentLagNanos(1_000 * MS, 10_000 * MS));
        assertEquals(0, lag.recentLagNanos(1_000 * MS, 200 * MS), "it ended 300 ms ago");
    }

    @Test
    void aTickStillOverdueCountsUpToNow() {
        lag.due(100 * MS);
        assertEquals(400 * MS, lag.behindNanos(0, 500 * MS));
        assertEquals(400 * MS, lag.recentLagNanos(500 * MS, 0));
    }

    @Test
    void spansPastTheHorizonAreForgotten() {
        lag.due(100 * MS);
        lag.ran(700 * MS);
        lag.due(20_000 * MS);
        lag.ran(20_000 * MS);
        assertEquals(0, lag.behindNanos(0, 20_000 * MS));
        assertEquals(0, lag.recentLagNanos(20_000 * MS, 60_000 * MS));
    }

    @Test
    void aNegativeToleranceIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new SchedulingLag(-1, 1));
    }

    @Test
    void theMonitorMeasuresAPausedLoop() {
        VirtualTime time = new VirtualTime();
        VirtualExecutor loop = time.executor("node");
        LagMonitor monitor = new LagMonitor(loop, time::nanos, Duration.ofMillis(100), lag);
        monitor.start();
        time.runFor(Duration.ofSeconds(1));
        assertEquals(0, lag.behindNanos(0, time.nanos()), "a loop with nothing to do keeps up");
        long pausedAt = time.nanos();
        loop.pause(2_000 * MS);
        time.runFor(Duration.ofSeconds(3));
        long behind = lag.behindNanos(pausedAt, time.nanos());
        assertEquals(2_000 * MS, behind, 100 * MS, "the pause, within one tick");
    }
}
