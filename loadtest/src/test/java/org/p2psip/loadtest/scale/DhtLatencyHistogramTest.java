package org.p2psip.loadtest.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DhtLatencyHistogramTest {

    /** One node's scrape: 100 gets (90 within 1 ms, 10 within 10 ms) and 10 puts, 2 of which failed slowly. */
    private static final String NODE_A = """
            # HELP p2psip_dht_operation_duration_seconds DHT operations by kind and outcome.
            # TYPE p2psip_dht_operation_duration_seconds histogram
            p2psip_dht_operation_duration_seconds_bucket{operation="get",outcome="ok",le="0.001"} 90
            p2psip_dht_operation_duration_seconds_bucket{operation="get",outcome="ok",le="0.01"} 100
            p2psip_dht_operation_duration_seconds_bucket{operation="get",outcome="ok",le="+Inf"} 100
            p2psip_dht_operation_duration_seconds_sum{operation="get",outcome="ok"} 0.2
            p2psip_dht_operation_duration_seconds_count{operation="get",outcome="ok"} 100
            p2psip_dht_operation_duration_seconds_bucket{operation="put",outcome="ok",le="0.001"} 0
            p2psip_dht_operation_duration_seconds_bucket{operation="put",outcome="ok",le="0.01"} 8
            p2psip_dht_operation_duration_seconds_bucket{operation="put",outcome="ok",le="+Inf"} 8
            p2psip_dht_operation_duration_seconds_bucket{operation="put",outcome="error",le="0.001"} 0
            p2psip_dht_operation_duration_seconds_bucket{operation="put",outcome="error",le="0.01"} 0
            p2psip_dht_operation_duration_seconds_bucket{operation="put",outcome="error",le="+Inf"} 2
            p2psip_dht_stored_entries 42
            # TYPE p2psip_dht_key_operations_total counter
            p2psip_dht_key_operations_total{placement="local"} 90
            p2psip_dht_key_operations_total{placement="remote"} 18
            p2psip_dht_key_operations_total{placement="unknown"} 0
            """;

    @Test
    void bucketsOfEveryKindAndOutcomeAddUpAndErrorsAreCounted() {
        DhtLatencyHistogram h = DhtLatencyHistogram.parse(NODE_A);
        assertEquals(110, h.count());
        DhtOperations ops = h.summary().orElseThrow();
        assertEquals(110, ops.count());
        assertEquals(2, ops.errors());
    }

    @Test
    void quantilesInterpolateWithinTheirBucketLikeHistogramQuantile() {
        DhtLatencyHistogram h = DhtLatencyHistogram.parse(NODE_A);
        // rank 55 of 110 falls in the first bucket (90 of them): 55/90 of the way from 0 to 1 ms.
        assertEquals(0.001 * 55 / 90, h.quantile(0.5), 1e-12);
        // rank 108.9 lies past the 108 within 10 ms: in +Inf, reported as the highest finite bound.
        assertEquals(0.01, h.quantile(0.99), 1e-12);
        // rank 99 falls in (1 ms, 10 ms], 9 of its 18.
        assertEquals(0.001 + 0.009 * 9 / 18, h.quantile(0.9), 1e-12);
    }

    @Test
    void aStepIsTheDifferenceOfTwoScrapesSummedOverNodes() {
        DhtLatencyHistogram before = DhtLatencyHistogram.parse(NODE_A).plus(DhtLatencyHistogram.parse(NODE_A));
        String later = NODE_A.replace("le=\"0.001\"} 90", "le=\"0.001\"} 190")
                .replace("le=\"0.01\"} 100", "le=\"0.01\"} 200").replace("le=\"+Inf\"} 100", "le=\"+Inf\"} 200");
        DhtLatencyHistogram after = DhtLatencyHistogram.parse(later).plus(DhtLatencyHistogram.parse(NODE_A));
        DhtLatencyHistogram step = after.minus(before);
        assertEquals(100, step.count(), "100 more gets on one node, none on the other");
        DhtOperations ops = step.summary().orElseThrow();
        assertEquals(0, ops.errors());
        assertEquals(1.0 * 99 / 100, ops.p99Millis(), 1e-9, "all 100 within 1 ms: rank 99 of 100");
    }

    @Test
    void keyOperationsAreSplitByWhetherTheNodeOwnedTheKey() {
        DhtLatencyHistogram before = DhtLatencyHistogram.parse(NODE_A).plus(DhtLatencyHistogram.parse(NODE_A));
        String later = NODE_A.replace("le=\"+Inf\"} 100", "le=\"+Inf\"} 200")
                .replace("placement=\"local\"} 90", "placement=\"local\"} 189")
                .replace("placement=\"remote\"} 18", "placement=\"remote\"} 19");
        DhtOperations step = DhtLatencyHistogram.parse(later).plus(DhtLatencyHistogram.parse(NODE_A)).minus(before)
                .summary().orElseThrow();
        assertEquals(99, step.local());
        assertEquals(1, step.remote());
        assertEquals(0.99, step.localShare().orElseThrow(), 1e-12);
    }

    @Test
    void noOperationsIsNoSummary() {
        assertTrue(DhtLatencyHistogram.parse("# nothing here\nother_metric 3\n").summary().isEmpty());
        assertTrue(DhtLatencyHistogram.parse(NODE_A).minus(DhtLatencyHistogram.parse(NODE_A)).summary().isEmpty());
    }
}
