package org.p2psip.core.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class OverloadShareTest {

    private static final long W = OverloadShare.WINDOW_NANOS;

    @Test
    void aNodeThatRefusesNothingAsksForNothing() {
        OverloadShare share = new OverloadShare();
        for (int i = 0; i < 10; i++) {
            share.record(false, i * W);
        }
        assertEquals(0, share.percent(10 * W));
    }

    @Test
    void refusalsInAWindowAskForAFifthThenTenPointsMoreEachWindow() {
        OverloadShare share = new OverloadShare();
        share.record(false, 0);
        share.record(true, W / 2);
        assertEquals(0, share.percent(W / 2), "the window has not ended");
        share.record(true, W + 1);
        assertEquals(OverloadShare.FIRST, share.percent(W + 1));
        share.record(true, 2 * W + 2);
        assertEquals(OverloadShare.FIRST + OverloadShare.STEP_UP, share.percent(2 * W + 2));
    }

    @Test
    void theShareNeverReachesEverything() {
        OverloadShare share = new OverloadShare();
        share.record(false, 0);
        for (int i = 0; i < 30; i++) {
            share.record(true, i * W + W / 2);
        }
        assertEquals(OverloadShare.MAX, share.percent(30 * W + 1));
    }

    @Test
    void windowsWithoutRefusalsLowerTheShareFivePointsEach() {
        OverloadShare share = new OverloadShare();
        share.record(false, 0);
        for (int i = 0; i < 4; i++) {
            share.record(true, i * W + W / 2);
        }
        assertEquals(OverloadShare.FIRST + 2 * OverloadShare.STEP_UP, share.percent(4 * W));
        int peak = OverloadShare.FIRST + 3 * OverloadShare.STEP_UP;
        assertEquals(peak, share.percent(4 * W + W / 2), "the window of the last refusal has ended");
        assertEquals(peak - 2 * OverloadShare.STEP_DOWN, share.percent(6 * W + W / 2));
        assertEquals(0, share.percent(100 * W));
    }
}
