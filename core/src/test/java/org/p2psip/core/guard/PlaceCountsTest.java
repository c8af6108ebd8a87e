package org.p2psip.core.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PlaceCountsTest {

    @Test
    void aKeyTakesPlacesUpToItsCapAndGetsThemBack() {
        PlaceCounts<String> counts = new PlaceCounts<>();

        assertTrue(counts.take("a", 2));
        assertTrue(counts.take("a", 2));
        assertFalse(counts.take("a", 2));
        assertTrue(counts.take("b", 2), "another key has places of its own");
        counts.give("a");

        assertEquals(1, counts.held("a"));
        assertTrue(counts.take("a", 2));
        counts.give("b");
        counts.give("b");
        assertEquals(0, counts.held("b"), "never below none");
    }
}
