package org.p2psip.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class SipTrafficTest {

    private static long received(SipTraffic t, String label) {
        return t.requests().stream().filter(c -> c.method().equals(label)).findFirst().orElseThrow().count();
    }

    @Test
    void requestsAreCountedByMethodAndUnknownMethodsShareOneLabel() {
        SipTraffic t = new SipTraffic();
        t.received("REGISTER");
        t.received("REGISTER");
        t.received("INVITE");
        t.received("FOO");
        t.received("register");
        t.received(null);
        assertEquals(2, received(t, "REGISTER"));
        assertEquals(1, received(t, "INVITE"));
        assertEquals(3, received(t, SipTraffic.OTHER));
        assertEquals(0, received(t, "BYE"));
        assertEquals(SipTraffic.METHODS.size() + 1, t.requests().size());
    }

    @Test
    void responsesAreCountedByMethodAndStatusClass() {
        SipTraffic t = new SipTraffic();
        t.answered("INVITE", 100);
        t.answered("INVITE", 180);
        t.answeredFinal("INVITE", 486, 1_000);
        t.answeredFinal("REGISTER", 200, 1_000);
        t.answeredFinal("REGISTER", 700, 1_000);
        assertEquals(List.of(
                new SipTraffic.ResponseCount("REGISTER", "2xx", 1),
                new SipTraffic.ResponseCount("REGISTER", SipTraffic.OTHER, 1),
                new SipTraffic.ResponseCount("INVITE", "1xx", 2),
                new SipTraffic.ResponseCount("INVITE", "4xx", 1)), t.responses());
    }

    @Test
    void onlyFinalResponsesOfRegisterAndInviteAreTimed() {
        SipTraffic t = new SipTraffic();
        t.answeredFinal("REGISTER", 200, 3_000_000);
        t.answeredFinal("REGISTER", 401, 1_000_000);
        t.answeredFinal("INVITE", 200, 40_000_000);
        t.answeredFinal("BYE", 200, 9_000_000);
        t.answered("INVITE", 180);
        List<SipTraffic.MethodLatency> l = t.latencies();
        assertEquals("REGISTER", l.get(0).method());
        assertEquals(2, l.get(0).latency().count());
        assertEquals(4_000_000, l.get(0).latency().sumNanos());
        assertEquals("INVITE", l.get(1).method());
        assertEquals(1, l.get(1).latency().count());
        assertEquals(40_000_000, l.get(1).latency().sumNanos());
        assertEquals(2, l.size());
    }

    @Test
    void statusClassesFollowTheFirstDigit() {
        assertEquals("1xx", SipTraffic.statusClass(100));
        assertEquals("2xx", SipTraffic.statusClass(299));
        assertEquals("6xx", SipTraffic.statusClass(699));
        assertEquals(SipTraffic.OTHER, SipTraffic.statusClass(99));
        assertEquals(SipTraffic.OTHER, SipTraffic.statusClass(700));
        assertTrue(SipTraffic.METHODS.contains(SipTraffic.methodLabel("PRACK")));
    }
}
