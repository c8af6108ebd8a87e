package org.p2psip.loadtest.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.p2psip.loadtest.bench.LoadReport;

class CpuCostTest {

    private static CpuCost.Sample sample(long nodesMs, long balancerMs, long generatorMs) {
        return new CpuCost.Sample(Duration.ofMillis(nodesMs), Duration.ofMillis(balancerMs),
                Duration.ofMillis(generatorMs));
    }

    private static LoadReport sent(long requests) {
        return new LoadReport("register", "udp", "127.0.0.1:5060", requests, requests, requests, requests, 0, Map.of(),
                0, 1, 1, 1, 1, 1, 1, 1, 0, 0);
    }

    @Test
    void theCostIsTheTimeBetweenTwoSamplesPerThousandRequests() {
        CpuCost cost = CpuCost.between(sample(1_000, 200, 300), sample(4_000, 700, 1_100), 2_000).orElseThrow();
        assertEquals(1_500, cost.nodesMillis(), 1e-9);
        assertEquals(250, cost.balancerMillis(), 1e-9);
        assertEquals(400, cost.generatorMillis(), 1e-9);
    }

    @Test
    void aStepThatSentNothingOrWhoseTimesWentBackHasNoCost() {
        assertEquals(Optional.empty(), CpuCost.between(sample(0, 0, 0), sample(10, 10, 10), 0));
        assertEquals(Optional.empty(), CpuCost.between(sample(5_000, 0, 0), sample(3_000, 10, 10), 100),
                "a node exited between the samples and took its time out of the sum");
    }

    @Test
    void theProjectionFillsEveryHostsCoresWithTheNodesCostPerRequest() {
        CpuCost cost = new CpuCost(1_000, 0, 0);
        assertEquals(2_000, cost.projectedRate(1, 2), 1e-9, "1 ms of node CPU per request, 2 cores: 2,000/s");
        assertEquals(8_000, cost.projectedRate(4, 2), 1e-9, "four such hosts");
        assertEquals(0, new CpuCost(0, 1, 1).projectedRate(1, 2));
        assertThrows(IllegalArgumentException.class, () -> cost.projectedRate(0, 2));
    }

    @Test
    void negativeCostsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new CpuCost(-1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new CpuCost(0, Double.NaN, 0));
    }

    @Test
    void theMeterKeepsEachStepsCostUnderItsIndex() {
        long[] nodes = {0};
        StepMeter<CpuCost.Sample, CpuCost> meter = StepMeter.cpu(() -> Optional.of(sample(nodes[0], 0, 0)));
        meter.starting(0, 100);
        nodes[0] = 300;
        meter.finished(0, sent(600), true);
        meter.starting(1, 200);
        nodes[0] = 1_300;
        meter.finished(1, sent(1_000), false);
        assertEquals(500, meter.of(0).orElseThrow().nodesMillis(), 1e-9);
        assertEquals(1_000, meter.of(1).orElseThrow().nodesMillis(), 1e-9);
        assertTrue(meter.of(2).isEmpty());
    }

    @Test
    void aFailedSampleLeavesTheStepWithoutACost() {
        StepMeter<CpuCost.Sample, CpuCost> meter = StepMeter.cpu(Optional::empty);
        meter.starting(0, 100);
        meter.finished(0, sent(600), true);
        assertTrue(meter.of(0).isEmpty());
    }
}
