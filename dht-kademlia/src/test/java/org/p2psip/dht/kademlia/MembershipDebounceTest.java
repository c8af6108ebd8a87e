package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** When a hand-over pass runs after the table changed, with time passed in. */
class MembershipDebounceTest {

    private static final long QUIET = 2_000;
    private static final long MAX_WAIT = 20_000;

    private final MembershipDebounce debounce = new MembershipDebounce(QUIET, MAX_WAIT);

    @Test
    void noChangeNoPass() {
        assertFalse(debounce.startIfDue(0, 0));
        assertFalse(debounce.startIfDue(0, 60_000));
    }

    @Test
    void aBurstOfChangesStartsOnePassOnceTheTableIsQuiet() {
        assertFalse(debounce.startIfDue(1, 1_000));
        assertFalse(debounce.startIfDue(3, 1_500));
        assertFalse(debounce.startIfDue(4, 2_000));
        assertFalse(debounce.startIfDue(4, 3_999), "quiet for less than " + QUIET + " ms");
        assertTrue(debounce.startIfDue(4, 4_000));
        debounce.ended();
        assertFalse(debounce.startIfDue(4, 10_000), "the burst was handed over once");
    }

    @Test
    void aTableThatNeverSettlesStillGetsAPassAfterTheLongestWait() {
        long now = 1_000;
        int changes = 0;
        while (now < 1_000 + MAX_WAIT) {
            assertFalse(debounce.startIfDue(++changes, now), "at " + now);
            now += QUIET / 2;
        }
        assertTrue(debounce.startIfDue(++changes, now));
    }

    @Test
    void changesDuringAPassWaitForItToEndThenStartAnother() {
        debounce.startIfDue(1, 0);
        assertTrue(debounce.startIfDue(1, QUIET));
        assertFalse(debounce.startIfDue(2, QUIET + 100));
        assertFalse(debounce.startIfDue(2, QUIET + MAX_WAIT + 100), "one pass at a time");
        debounce.ended();
        assertTrue(debounce.startIfDue(2, QUIET + MAX_WAIT + 200), "waited long enough meanwhile");
        debounce.ended();
        assertFalse(debounce.startIfDue(2, QUIET + MAX_WAIT + 300));
    }
}
