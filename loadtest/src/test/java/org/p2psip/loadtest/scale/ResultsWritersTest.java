package org.p2psip.loadtest.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** The result writers are pure: known cells in, exact and parseable text out. */
class ResultsWritersTest {

    private static ScaleCell ok(String dht, int nodes, String scenario, double rate) {
        return ok(dht, ScaleCell.AUTH_REQUIRED, nodes, scenario, rate);
    }

    private static ScaleCell ok(String dht, String auth, int nodes, String scenario, double rate) {
        return new ScaleCell(dht, auth, ScaleCell.POLICY_OWNER, nodes, scenario, ScaleCell.Status.OK, "", rate, rate * 0.99, 1.0, 1.5, 4.25, 20.125,
                6, "converged", 3.5, Optional.empty(), 0, Optional.empty(), Optional.empty());
    }

    /** A multi-node cell whose nodes' DHT operations were read: 3 of 30,000 failed. */
    private static ScaleCell withDht(String dht, int nodes, String scenario, double rate) {
        return new ScaleCell(dht, ScaleCell.AUTH_REQUIRED, ScaleCell.POLICY_OWNER, nodes, scenario, ScaleCell.Status.OK, "", rate, rate * 0.99,
                0.9999, 1.5, 4.25, 20.125, 6, "converged", 3.5, Optional.empty(), 2,
                Optional.of(new DhtOperations(30_000, 3, 0.75, 12.5, 19_000, 1_000)), Optional.of(new CpuCost(1_500, 250, 400)));
    }

    private static ScaleResults sample() {
        List<ScaleCell> cells = List.of(
                ok("local", 1, "register", 8000).withSipp(SippCheck.judge(8000, 7920, 7600, 32000, 0)),
                ok("local", 1, "call", 1200),
                ScaleCell.skipped("local", ScaleCell.AUTH_REQUIRED, ScaleCell.POLICY_OWNER, 2, "register", "one node only"),
                ScaleCell.skipped("local", ScaleCell.AUTH_REQUIRED, ScaleCell.POLICY_OWNER, 2, "call", "one node only"),
                ok("hazelcast", 1, "register", 4000),
                ok("hazelcast", 1, "call", 900),
                withDht("hazelcast", 2, "register", 3000),
                ScaleCell.failed("hazelcast", ScaleCell.AUTH_REQUIRED, ScaleCell.POLICY_OWNER, 2, "call",
                        "node 2 said \"port busy\", then\nexited", 7.25),
                ok("hazelcast", ScaleCell.AUTH_NONE, 1, "register", 5000));
        return new ScaleResults(Instant.parse("2026-11-21T10:00:00Z"), 123.4, 2, "17.0.15",
                ScaleSettings.defaults(Path.of("out")), cells);
    }

    @Test
    void csvHasAHeaderAndOneRecordPerCellAndQuotesWhatNeedsIt() {
        List<List<String>> rows = Csv.parse(ResultsCsv.render(sample()));
        assertEquals(ResultsCsv.COLUMNS, rows.get(0));
        assertEquals(1 + 9, rows.size());
        rows.forEach(r -> assertEquals(ResultsCsv.COLUMNS.size(), r.size(), r.toString()));
        List<String> first = rows.get(1);
        assertEquals(List.of("local", "required", "owner", "1", "register", "ok", "8000", "7920.0", "1.00000", "1.500",
                "4.250", "20.125", "6", "converged", "3.50", "8000", "7600.0", "true", "0", "", "", "", "", "", "", "",
                "", "", ""), first);
        assertEquals(List.of("2", "30000", "3", "0.750", "12.500", "0.9500"), rows.get(7).subList(18, 24),
                "failed requests, then the nodes' DHT operations and the share started where the key lives");
        assertEquals(List.of("1500.0", "250.0", "400.0", "2667"), rows.get(7).subList(24, 28),
                "CPU per 1,000 requests: nodes, balancer, generator; then 2 nodes x 2 cores projected");
        List<String> failed = rows.get(8);
        assertEquals("failed", failed.get(5));
        assertEquals("node 2 said \"port busy\", then\nexited", failed.get(28));
        assertEquals("", rows.get(3).get(15), "no SIPp figures for a cell without a cross-check");
        assertEquals("none", rows.get(9).get(1));
    }

    @Test
    void jsonParsesBackWithEveryCell() {
        @SuppressWarnings("unchecked")
        Map<String, Object> doc = (Map<String, Object>) MiniJson.parse(ResultsJson.render(sample()));
        assertEquals("2026-11-21T10:00:00Z", doc.get("started_at"));
        assertEquals(2.0, doc.get("cores"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> cells = (List<Map<String, Object>>) doc.get("cells");
        assertEquals(9, cells.size());
        Map<String, Object> first = cells.get(0);
        assertEquals("local", first.get("dht"));
        assertEquals("required", first.get("auth"));
        assertEquals(8000.0, first.get("max_rate"));
        assertEquals(Map.of("p50", 1.5, "p90", 4.25, "p99", 20.125), first.get("latency_ms"));
        @SuppressWarnings("unchecked")
        Map<String, Object> sipp = (Map<String, Object>) first.get("sipp");
        assertEquals(Boolean.TRUE, sipp.get("agree"));
        assertNull(cells.get(1).get("sipp"));
        assertNull(first.get("dht_operations"), "no metrics read");
        assertEquals(Map.of("count", 30000.0, "errors", 3.0, "p50_ms", 0.75, "p99_ms", 12.5, "local", 19000.0,
                "remote", 1000.0, "local_share", 0.95), cells.get(6).get("dht_operations"));
        assertEquals("owner", first.get("policy"));
        assertEquals(2.0, cells.get(6).get("failed"));
        assertEquals(Map.of("nodes", 1500.0, "balancer", 250.0, "generator", 400.0),
                cells.get(6).get("cpu_ms_per_1000"));
        assertEquals(2 * 2 * 1_000_000.0 / 1500, (Double) cells.get(6).get("projected_rate"), 1e-3);
        assertNull(first.get("cpu_ms_per_1000"), "no CPU times read");
        assertNull(first.get("projected_rate"));
        assertNull(cells.get(2).get("load_average"), "unknown load average is null, not -1");
        assertEquals("node 2 said \"port busy\", then\nexited", cells.get(7).get("note"));
        @SuppressWarnings("unchecked")
        Map<String, Object> settings = (Map<String, Object>) doc.get("settings");
        assertEquals(List.of("local", "hazelcast", "chord", "kademlia"), settings.get("dht"));
        assertEquals(List.of("owner"), settings.get("policy"));
    }

    @Test
    void jsonOfNoCellsIsStillADocument() {
        ScaleResults empty = new ScaleResults(Instant.EPOCH, 0, 1, "17", ScaleSettings.defaults(Path.of("x")), List.of());
        @SuppressWarnings("unchecked")
        Map<String, Object> doc = (Map<String, Object>) MiniJson.parse(ResultsJson.render(empty));
        assertEquals(List.of(), doc.get("cells"));
    }

    @Test
    void markdownIsThePapersTableTurnedToNodeCounts() {
        String md = ResultsTable.table(sample(), "register");
        List<String> lines = md.lines().toList();
        assertEquals("### register — REGISTER/s", lines.get(0));
        assertEquals("| backend | 1 node | 2 nodes |", lines.get(2));
        assertEquals("| --- | ---: | ---: |", lines.get(3));
        assertEquals("| local | 8,000 | — |", lines.get(4));
        assertEquals("| hazelcast | 4,000 | 3,000 (75 %) |", lines.get(5), "beyond one node: the share of one node's rate");
        assertEquals("| hazelcast (auth none) | 5,000 |  |", lines.get(6), "without authentication: a row of its own");
        assertEquals(7, lines.size());
        String call = ResultsTable.table(sample(), "call");
        assertTrue(call.contains("| hazelcast | 900 | failed |"), call);
        assertTrue(call.startsWith("### call — call attempts/s"), call);
    }

    @Test
    void markdownDocumentListsLatenciesAndNotes() {
        String md = ResultsTable.render(sample());
        assertTrue(md.contains("| register | local | 1 | 8,000 | 0 | 1.50 | 4.25 | 20.13 | — | — | — | — | — |"), md);
        assertTrue(md.contains("| register | hazelcast | 2 | 3,000 | 2 | 1.50 | 4.25 | 20.13 | 30,000 | 3 | 0.75 | 12.50 | 95.0 % |"),
                md);
        assertFalse(md.contains("| call | hazelcast | 2 |"), "a failed cell has no latency row");
        assertTrue(md.contains("| register | hazelcast | 2 | 3,000 | 1,500 | 250 | 400 | 2,667 |"), md);
        assertTrue(md.contains("| register | local | 1 | 8,000 | — | — | — | — |\n"),
                "a cell without CPU times shows dashes: " + md);
        assertTrue(md.contains("not a measurement"), "the projection says what it is");
        assertTrue(md.contains("- local x1 register: SIPp cross-check at 8,000/s: SIPp 7600.0/s (32000 ok, 0 failed), "
                + "ours 7920.0/s, -4.0 % — agree within 10 %"), md);
        assertTrue(md.contains("- local x2 call: one node only"), md);
    }

    @Test
    void aPolicyOtherThanOwnerIsARowOfItsOwn() {
        assertEquals("chord", ScaleCell.row("chord", ScaleCell.AUTH_REQUIRED, ScaleCell.POLICY_OWNER));
        assertEquals("chord (call-id)", ScaleCell.row("chord", ScaleCell.AUTH_REQUIRED, "call-id"));
        assertEquals("chord (auth none, call-id)", ScaleCell.row("chord", ScaleCell.AUTH_NONE, "call-id"));
    }

    @Test
    void aCellWhereNoStepHeldSaysSo() {
        ScaleCell none = new ScaleCell("chord", ScaleCell.AUTH_REQUIRED, ScaleCell.POLICY_OWNER, 1, "call", ScaleCell.Status.OK, "", 0, 0, 0, 0, 0, 0, 3, "max-steps",
                1, Optional.empty(), 0, Optional.empty(), Optional.empty());
        assertEquals("none held", ResultsTable.cellText(Optional.of(none), Optional.empty()));
        assertFalse(none.measured());
    }

    @Test
    void sippAgreementIsTenPercentOfOurRate() {
        assertTrue(SippCheck.judge(1000, 1000, 901, 1, 0).agree());
        assertTrue(SippCheck.judge(1000, 1000, 1100, 1, 0).agree());
        assertFalse(SippCheck.judge(1000, 1000, 899, 1, 0).agree());
        assertFalse(SippCheck.judge(1000, 0, 0, 0, 0).agree(), "nothing of ours to agree with");
    }

    @Test
    void sippStatisticsAreReadByColumnName() {
        String header = "StartTime;LastResetTime;CurrentTime;ElapsedTime(P);ElapsedTime(C);TargetRate;"
                + "SuccessfulCall(P);SuccessfulCall(C);FailedCall(P);FailedCall(C);";
        String row = "2026-11-21\t19:11:50.655736\t1795288310.655736;x;2026-11-21\t19:11:54.905736\t1795288314.905736;"
                + "00:00:00;00:00:04;500;0;2000;0;3;";
        SippStats s = SippStats.lastRow(List.of(header, "ignored;earlier;row", row)).orElseThrow();
        assertEquals(2000, s.successful());
        assertEquals(3, s.failed());
        assertEquals(4.25, s.elapsedSeconds(), 1e-6, "from the microsecond time stamps, not the whole seconds");
        assertTrue(SippStats.lastRow(List.of(header)).isEmpty());
        assertEquals(3723.5, SippStats.seconds("01:02:03:500000"), 1e-9);
    }
}
