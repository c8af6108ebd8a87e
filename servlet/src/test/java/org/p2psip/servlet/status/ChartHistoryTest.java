package org.p2psip.servlet.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;

class ChartHistoryTest {

    @Test
    void pointsComeOldestFirstAndGapsAreNull() {
        ChartHistory c = new ChartHistory("Requests per second", "/s", List.of("a", "b"), 5);
        c.add(1_000, 1.5, Double.NaN);
        c.add(2_000, 2, 0.25);

        assertEquals("{\"title\":\"Requests per second\",\"unit\":\"/s\",\"series\":[\"a\",\"b\"],"
                + "\"points\":[[1000,1.500,null],[2000,2,0.250]]}", c.json());
    }

    @Test
    void pastItsCapacityTheOldestSamplesGo() {
        ChartHistory c = new ChartHistory("t", "ms", List.of("p50"), 3);
        for (int i = 1; i <= 5; i++) {
            c.add(i, i * 10);
        }

        assertEquals(3, c.size());
        assertEquals("{\"title\":\"t\",\"unit\":\"ms\",\"series\":[\"p50\"],\"points\":[[3,30],[4,40],[5,50]]}",
                c.json());
    }

    @Test
    void anEmptyChartHasNoPoints() {
        assertEquals("{\"title\":\"t\",\"unit\":\"ms\",\"series\":[\"x\"],\"points\":[]}",
                new ChartHistory("t", "ms", List.of("x"), 2).json());
    }

    @Test
    void aSampleMustGiveEverySeriesAValue() {
        ChartHistory c = new ChartHistory("t", "ms", List.of("p50", "p99"), 3);
        assertThrows(IllegalArgumentException.class, () -> c.add(1, 5));
        assertThrows(IllegalArgumentException.class, () -> new ChartHistory("t", "ms", List.of(), 3));
        assertThrows(IllegalArgumentException.class, () -> new ChartHistory("t", "ms", List.of("x"), 1));
    }

    @Test
    void infinitiesAreGapsAndLargeWholeNumbersStayWhole() {
        assertEquals("null", ChartHistory.number(Double.POSITIVE_INFINITY));
        assertEquals("16778", ChartHistory.number(16_778));
        assertEquals("0.001", ChartHistory.number(0.0012));
    }
}
