package org.p2psip.servlet.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.p2psip.servlet.status.StatusView.Fact;

class StatusViewTest {

    @Test
    void theJsonCarriesFactsMembersAndChartsWithTextEscaped() {
        ChartHistory chart = new ChartHistory("c", "/s", List.of("x"), 2);
        StatusView v = new StatusView("node", "p2psip \"a\"", List.of(new Fact("SIP", "127.0.0.1:5060")),
                List.of("id", "role"), List.of(List.of("ab", "this node")), List.of(chart));

        assertEquals("{\"kind\":\"node\",\"title\":\"p2psip \\\"a\\\"\",\"facts\":[{\"name\":\"SIP\",\"value\":"
                + "\"127.0.0.1:5060\"}],\"members\":{\"columns\":[\"id\",\"role\"],\"rows\":[[\"ab\",\"this node\"]]},"
                + "\"charts\":[" + chart.json() + "]}", v.json());
    }

    @Test
    void aMemberRowMustFillEveryColumn() {
        assertThrows(IllegalArgumentException.class, () -> new StatusView("node", "t", List.of(), List.of("a", "b"),
                List.of(List.of("only one")), List.of()));
    }

    @Test
    void uptimesAndSharesReadAsAPersonWouldSayThem() {
        assertEquals("42 s", StatusView.uptime(42));
        assertEquals("3 min 12 s", StatusView.uptime(192));
        assertEquals("5 h 07 min", StatusView.uptime(5 * 3_600 + 7 * 60 + 5));
        assertEquals("2 d 4 h", StatusView.uptime(2 * 86_400 + 4 * 3_600 + 59));
        assertEquals("0 s", StatusView.uptime(-3));
        assertEquals("33.3 %", StatusView.share(1 / 3.0));
        assertEquals("-", StatusView.share(Double.NaN));
    }
}
