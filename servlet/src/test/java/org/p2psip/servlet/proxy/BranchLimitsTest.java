package org.p2psip.servlet.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;
import org.p2psip.core.location.Binding;
import org.p2psip.core.net.HostPort;

class BranchLimitsTest {

    private static Binding binding(String contact, List<String> path) {
        return new Binding(contact, Map.of(), Instant.EPOCH.plusSeconds(3600), Binding.Q_UNSPECIFIED, "c", 1,
                Optional.empty(), OptionalInt.empty(), path, new HostPort("127.0.0.1", 5060), "UDP");
    }

    private static List<Binding> onHosts(int n) {
        List<Binding> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(binding("sip:u@host" + i + ".test", List.of()));
        }
        return out;
    }

    @Test
    void atMostMaxBranchesInForwardingOrder() {
        List<Binding> all = onHosts(20);
        assertEquals(all.subList(0, 12), BranchLimits.select(all, 12, 4, false));
    }

    @Test
    void atMostSoManyPerHostTheRestGoElsewhere() {
        List<Binding> all = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            all.add(binding("sip:u" + i + "@victim.test:" + (5000 + i), List.of()));
        }
        all.add(binding("sip:u@other.test", List.of()));
        List<Binding> kept = BranchLimits.select(all, 12, 4, false);
        assertEquals(5, kept.size());
        assertEquals("sip:u@other.test", kept.get(4).contact());
    }

    @Test
    void theNextHopOfABindingWithPathIsItsFirstPathValue() {
        Binding viaEdge = binding("sip:u@10.0.0.1", List.of("<sip:edge.test;lr>", "<sip:inner.test;lr>"));
        assertEquals("edge.test", BranchLimits.nextHopHost(viaEdge));
    }

    @Test
    void aRequestThatPassedThroughTheClusterGoesToOneTargetOnly() {
        List<Binding> all = onHosts(4);
        assertEquals(all.subList(0, 1), BranchLimits.select(all, 12, 4, true));
    }
}
