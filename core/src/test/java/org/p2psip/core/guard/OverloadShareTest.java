package org.p2psip.core.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class OverloadShareTest {

    private static final long W = OverloadShare.WINDOW_NANOS;

    /** One window from {@code start}: {@code admitted} requests admitted and {@code refused} refused. */
    private static void window(OverloadShare share, long start, int admitted, int refused) {
        for (int i = 0; i < admitted; i++) {
            share.record(false, start + 1);
        }
        for (int i = 0; i < refused; i++) {
            share.record(true, start + 2);
        }
    }

    @Test
    void aNodeThatRefusesNothingAsksForNothing() {
        OverloadShare share = new OverloadShare();
        for (int i = 0; i < 10; i++) {
            share.record(false, i * W);
        }
        assertEquals(0, share.percent(10 * W));
    }

    @Test
    void aNodeRefusingHalfAsksForWhatItAdmittedAndAFewPercentMore() {
        OverloadShare share = new OverloadShare();
        share.record(false, 0);
        window(share, 0, 500, 500);
        assertEquals(0, share.percent(W / 2), "the window has not ended");
        // Keep 50 % x 1.05 = 52.5 % of the load: shed 47 (rounded half up on what is kept, 53).
        assertEquals(47, share.percent(W + 1));
    }

    @Test
    void withAShareInForceTheNextRefusalsCutWhatIsLeft() {
        OverloadShare share = new OverloadShare();
        share.record(false, 0);
        window(share, 0, 500, 500);
        assertEquals(47, share.percent(W + 1));
        // Sent 53 % of the load, it admitted 80 % of that: keep 0.53 x 0.8 x 1.05 = 44.5 %.
        window(share, W + 1, 400, 100);
        assertEquals(55, share.percent(2 * W + 2));
    }

    @Test
    void aRefusalBeforeAnyWindowEndedStillAsksForAShare() {
        OverloadShare share = new OverloadShare();
        share.record(false, 0);
        window(share, 0, 500, 1);
        assertEquals(0, share.percent(W / 2));
        assertEquals(OverloadShare.REFUSING_FLOOR, share.percentWhileRefusing(W / 2));
    }

    @Test
    void aRefusalAsksForTheMeasuredShareOnceThereIsOne() {
        OverloadShare share = new OverloadShare();
        share.record(false, 0);
        window(share, 0, 500, 500);
        assertEquals(47, share.percentWhileRefusing(W + 1));
    }

    @Test
    void theShareNeverReachesEverything() {
        OverloadShare share = new OverloadShare();
        share.record(false, 0);
        for (int i = 0; i < 30; i++) {
            window(share, i * W, 1, 1000);
        }
        assertEquals(OverloadShare.MAX, share.percent(30 * W + 1));
    }

    @Test
    void windowsWithoutRefusalsLowerTheShareFivePointsEach() {
        OverloadShare share = new OverloadShare();
        share.record(false, 0);
        window(share, 0, 500, 500);
        assertEquals(47, share.percent(W + 1));
        assertEquals(47 - 2 * OverloadShare.STEP_DOWN, share.percent(3 * W + 2));
        assertEquals(0, share.percent(100 * W));
    }
}
