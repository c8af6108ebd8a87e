package org.p2psip.loadtest.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.function.DoublePredicate;

import org.junit.jupiter.api.Test;

class MaxRateSearchTest {

    /** Runs a search against a target that holds exactly the rates {@code holds} accepts. */
    private static List<Double> run(MaxRateSearch s, DoublePredicate holds) {
        List<Double> tried = new ArrayList<>();
        OptionalDouble next = s.nextRate();
        while (next.isPresent()) {
            tried.add(next.getAsDouble());
            next = s.record(holds.test(next.getAsDouble()));
        }
        return tried;
    }

    @Test
    void growsGeometricallyThenBisectsToWithinPrecision() {
        MaxRateSearch s = new MaxRateSearch(1000, 2, 0.05, 20);
        List<Double> tried = run(s, r -> r <= 5300);
        assertEquals(List.of(1000.0, 2000.0, 4000.0, 8000.0, 8000.0, 6000.0, 6000.0, 5000.0, 5500.0, 5500.0, 5250.0),
                tried, "each failing rate is tried twice before the search narrows down");
        assertEquals(5250, s.best());
        assertTrue(s.done());
    }

    @Test
    void aFailureThatDoesNotRepeatCountsAsHeld() {
        MaxRateSearch s = new MaxRateSearch(1000, 2, 0.05, 20);
        List<Boolean> verdicts = new ArrayList<>(List.of(true, false, true, false, false));
        List<Double> tried = run(s, r -> verdicts.isEmpty() ? false : verdicts.remove(0));
        assertEquals(List.of(1000.0, 2000.0, 2000.0, 4000.0, 4000.0), tried.subList(0, 5));
        assertEquals(2000, s.best(), "2000 held on its second try; 4000 failed twice");
    }

    @Test
    void aFailureOnTheLastAllowedStepIsNotRetried() {
        MaxRateSearch s = new MaxRateSearch(100, 2, 0.05, 2);
        assertEquals(List.of(100.0, 200.0), run(s, r -> r < 150));
        assertEquals(100, s.best());
    }

    @Test
    void stopsAtTheStepLimitWithTheBestSoFar() {
        MaxRateSearch s = new MaxRateSearch(100, 1.5, 0.01, 3);
        assertEquals(List.of(100.0, 150.0, 225.0), run(s, r -> true));
        assertEquals(225, s.best());
    }

    @Test
    void nothingHoldsMeansBestIsZeroAfterHalvingDown() {
        MaxRateSearch s = new MaxRateSearch(8, 2, 0.05, 20);
        List<Double> tried = run(s, r -> false);
        assertEquals(8.0, tried.get(0));
        assertEquals(0, s.best());
        assertTrue(tried.get(tried.size() - 1) <= 1.0 || tried.size() < 20);
    }

    @Test
    void criteriaNeedSuccessLatencyAndThePace() {
        MaxRateSearch.Criteria c = new MaxRateSearch.Criteria(0.999, 100, 0.95);
        assertTrue(c.holds(1000, 990, 0.9995, 80));
        assertFalse(c.holds(1000, 990, 0.998, 80), "too many failures");
        assertFalse(c.holds(1000, 990, 1.0, 101), "p99 over the bound");
        assertFalse(c.holds(1000, 900, 1.0, 10), "the rate was not achieved");
    }
}
