package org.p2psip.loadtest.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class WarmupSettlingTest {

    @Test
    void aCostStillFallingIsNotSettled() {
        WarmupSettling s = new WarmupSettling(20);
        for (double cost : List.of(1900.0, 1200.0, 800.0, 600.0, 480.0)) {
            assertFalse(s.round(cost), "still falling at " + cost);
        }
    }

    @Test
    void twoRoundsWithinTenPercentOfTheCheapestSettleIt() {
        WarmupSettling s = new WarmupSettling(20);
        assertFalse(s.round(1900));
        assertFalse(s.round(500));
        assertFalse(s.round(540), "one flat round");
        assertTrue(s.round(470), "a second, within 10 % below");
        assertEquals(List.of(1900.0, 500.0, 540.0, 470.0), s.costs());
    }

    @Test
    void aNoisyRoundAboveTheBandStartsTheCountAgain() {
        WarmupSettling s = new WarmupSettling(20);
        s.round(500);
        s.round(520);
        assertFalse(s.round(700), "a stall, e.g. a collection, is no sign of being warm");
        assertFalse(s.round(510));
        assertTrue(s.round(505));
    }

    @Test
    void theRoundLimitEndsItWhateverTheCosts() {
        WarmupSettling s = new WarmupSettling(3);
        assertFalse(s.round(900));
        assertFalse(s.round(600));
        assertTrue(s.round(300), "the third of at most three");
    }

    @Test
    void aCostMustBeANumber() {
        WarmupSettling s = new WarmupSettling(3);
        assertThrows(IllegalArgumentException.class, () -> s.round(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> s.round(-1));
        assertThrows(IllegalArgumentException.class, () -> new WarmupSettling(0));
    }
}
