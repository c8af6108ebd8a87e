package org.p2psip.servlet.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.p2psip.core.metrics.DhtLatencies;
import org.p2psip.core.metrics.DhtOperation;
import org.p2psip.core.metrics.DhtOutcome;
import org.p2psip.core.metrics.KeyOwnership;
import org.p2psip.servlet.accounting.AccountingCounts;

class PrometheusTextTest {

    private static final String GET_OK = "operation=\"get\",outcome=\"ok\"";

    private static List<String> lines(String text, String prefix) {
        return text.lines().filter(l -> l.startsWith(prefix)).toList();
    }

    @Test
    void aHistogramSeriesHasCumulativeBucketsForEveryBoundThenSumAndCountInSeconds() {
        DhtLatencies latencies = new DhtLatencies();
        latencies.record(DhtOperation.GET, DhtOutcome.OK, 500_000);      // exactly le 0.0005
        latencies.record(DhtOperation.GET, DhtOutcome.OK, 1_200_000);    // le 0.0025
        latencies.record(DhtOperation.GET, DhtOutcome.OK, 26_000_000_000L); // +Inf only

        String text = PrometheusText.render(latencies.snapshot(), -1, Map.of(), 0);

        String bucket = "p2psip_dht_operation_duration_seconds_bucket{" + GET_OK + ",le=";
        assertEquals(List.of(
                bucket + "\"0.0005\"} 1", bucket + "\"0.001\"} 1", bucket + "\"0.0025\"} 2",
                bucket + "\"0.005\"} 2", bucket + "\"0.0075\"} 2", bucket + "\"0.01\"} 2", bucket + "\"0.015\"} 2",
                bucket + "\"0.02\"} 2", bucket + "\"0.03\"} 2", bucket + "\"0.05\"} 2", bucket + "\"0.075\"} 2",
                bucket + "\"0.1\"} 2", bucket + "\"0.15\"} 2", bucket + "\"0.2\"} 2", bucket + "\"0.3\"} 2",
                bucket + "\"0.5\"} 2", bucket + "\"0.75\"} 2", bucket + "\"1\"} 2", bucket + "\"2.5\"} 2",
                bucket + "\"5\"} 2", bucket + "\"10\"} 2", bucket + "\"25\"} 2", bucket + "\"+Inf\"} 3"),
                lines(text, bucket));
        assertEquals(List.of("p2psip_dht_operation_duration_seconds_sum{" + GET_OK + "} 26.0017"),
                lines(text, "p2psip_dht_operation_duration_seconds_sum{" + GET_OK));
        assertEquals(List.of("p2psip_dht_operation_duration_seconds_count{" + GET_OK + "} 3"),
                lines(text, "p2psip_dht_operation_duration_seconds_count{" + GET_OK));
    }

    @Test
    void everyOperationAndOutcomeItCanHaveIsExposedFromTheStartAtZero() {
        String text = PrometheusText.render(new DhtLatencies().snapshot(), -1, Map.of(), 0);

        List<String> counts = lines(text, "p2psip_dht_operation_duration_seconds_count");
        assertEquals(10, counts.size(), text);
        assertTrue(counts.stream().allMatch(l -> l.endsWith("} 0")), counts.toString());
        assertTrue(text.contains("_count{operation=\"put\",outcome=\"conflict\"} 0"), text);
        assertTrue(text.contains("_count{operation=\"placement\",outcome=\"error\"} 0"), text);
        assertFalse(text.contains("operation=\"get\",outcome=\"conflict\""), "a read cannot conflict");
        assertTrue(text.contains("_sum{operation=\"remove\",outcome=\"ok\"} 0\n"), text);
    }

    @Test
    void theFamilyIsAnnouncedOnceAsAHistogramBeforeItsSamples() {
        String text = PrometheusText.render(new DhtLatencies().snapshot(), -1, Map.of(), 0);
        List<String> all = text.lines().toList();

        assertTrue(all.get(0).startsWith("# HELP p2psip_dht_operation_duration_seconds "), all.get(0));
        assertEquals("# TYPE p2psip_dht_operation_duration_seconds histogram", all.get(1));
        assertEquals(1, lines(text, "# TYPE p2psip_dht_operation_duration_seconds").size());
        assertTrue(text.endsWith("\n"));
    }

    @Test
    void theStoredEntriesGaugeAppearsOnlyWhenTheBackendCanCount() {
        String counted = PrometheusText.render(new DhtLatencies().snapshot(), 17, Map.of(), 0);
        String unknown = PrometheusText.render(new DhtLatencies().snapshot(), -1, Map.of(), 0);

        assertTrue(counted.contains("# TYPE p2psip_dht_stored_entries gauge\np2psip_dht_stored_entries 17\n"), counted);
        assertFalse(unknown.contains("p2psip_dht_stored_entries"), unknown);
    }

    @Test
    void keyOperationsAreCountedByPlacement() {
        DhtLatencies latencies = new DhtLatencies();
        latencies.countKey(KeyOwnership.LOCAL);
        latencies.countKey(KeyOwnership.LOCAL);
        latencies.countKey(KeyOwnership.REMOTE);
        String text = PrometheusText.render(latencies.snapshot(), -1, latencies.keyOwnership(), 0);

        assertTrue(text.contains("# TYPE p2psip_dht_key_operations_total counter\n"
                + "p2psip_dht_key_operations_total{placement=\"local\"} 2\n"
                + "p2psip_dht_key_operations_total{placement=\"remote\"} 1\n"
                + "p2psip_dht_key_operations_total{placement=\"unknown\"} 0\n"), text);
    }

    @Test
    void requestsShedForOverloadAreACounter() {
        String text = PrometheusText.render(new DhtLatencies().snapshot(), -1, Map.of(), 42);

        assertTrue(text.contains("# TYPE p2psip_sip_overload_rejections_total counter\n"
                + "p2psip_sip_overload_rejections_total 42\n"), text);
    }

    @Test
    void accountingIsThreeCountersAndAGaugeOfWhatWaits() {
        String text = PrometheusText.accounting(new AccountingCounts(20_000, 3, 125, 7));

        assertTrue(text.contains("# TYPE p2psip_acct_records_written_total counter\n"
                + "p2psip_acct_records_written_total 20000\n"), text);
        assertTrue(text.contains("# TYPE p2psip_acct_records_dropped_total counter\n"
                + "p2psip_acct_records_dropped_total 3\n"), text);
        assertTrue(text.contains("# TYPE p2psip_acct_records_pending gauge\n"
                + "p2psip_acct_records_pending 125\n"), text);
        assertTrue(text.contains("# TYPE p2psip_acct_flush_failures_total counter\n"
                + "p2psip_acct_flush_failures_total 7\n"), text);
        assertEquals(4, lines(text, "# HELP p2psip_acct_").size(), text);
    }

    @Test
    void admissionExportsItsLimitWhatWaitsAndWhatItRefused() {
        String text = PrometheusText.admission(192, 37, 4_096);
        assertTrue(text.contains("# TYPE p2psip_dht_admission_limit gauge\np2psip_dht_admission_limit 192\n"), text);
        assertTrue(text.contains("\np2psip_dht_admission_in_flight 37\n"), text);
        assertTrue(text.contains("# TYPE p2psip_dht_admission_refused_total counter\n"
                + "p2psip_dht_admission_refused_total 4096\n"), text);
    }

    @Test
    void secondsAreWrittenExactlyInPlainDecimal() {
        assertEquals("0", PrometheusText.seconds(0));
        assertEquals("0.000000001", PrometheusText.seconds(1));
        assertEquals("0.0075", PrometheusText.seconds(7_500_000));
        assertEquals("10", PrometheusText.seconds(10_000_000_000L));
    }
}
