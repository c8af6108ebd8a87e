package org.p2psip.servlet.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

class ResponseChoiceTest {

    @Test
    void sixHundredBeatsEverythingButSuccess() {
        assertEquals(603, ResponseChoice.best(List.of(486, 302, 603, 500)));
        assertEquals(200, ResponseChoice.best(List.of(603, 200)));
    }

    @Test
    void otherwiseTheLowestClassWins() {
        assertEquals(302, ResponseChoice.best(List.of(486, 302, 500)));
        assertEquals(404, ResponseChoice.best(List.of(500, 404, 503)));
    }

    @Test
    void actionable4xxArePreferredWithinTheClass() {
        assertEquals(407, ResponseChoice.best(List.of(404, 407, 486)));
        assertEquals(404, ResponseChoice.best(List.of(404, 486)));
    }

    @Test
    void chosen503IsSentAs500() {
        assertEquals(500, ResponseChoice.upstreamStatus(ResponseChoice.best(List.of(503))));
        assertEquals(486, ResponseChoice.upstreamStatus(486));
    }

    @Test
    void aFailedFlowReachesTheCallerAs480NotAsTheProxiesOnly430() {
        assertEquals(480, ResponseChoice.upstreamStatus(ResponseChoice.best(List.of(430))));
        assertEquals("Temporarily Unavailable", ResponseChoice.upstreamReason(430));
        assertEquals(486, ResponseChoice.upstreamStatus(ResponseChoice.best(List.of(430, 486))),
                "a phone's own answer from another branch says more");
    }

    @Test
    void nothingToChooseFromIsMinusOne() {
        assertEquals(-1, ResponseChoice.best(List.of()));
    }
}
