package org.p2psip.servlet.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.location.BindingChange;
import org.p2psip.core.store.FlushPolicy;
import org.p2psip.core.store.FlushSchedule;
import org.p2psip.core.testing.Eventually;
import org.p2psip.servlet.accounting.AccountingDatabase.Dialect;

/**
 * The accounting writer against a real H2 database in a temporary
 * directory: partials from two nodes become one row, a database that goes
 * away loses nothing the buffer holds, a full buffer drops and counts, a
 * refused record does not hold up its batch, and stopping writes what
 * waits.
 */
class BufferedJdbcSinkTest {

    static final Instant T0 = Instant.parse("2026-11-27T10:00:00.250Z");
    static final RetryBackoff QUICK = new RetryBackoff(Duration.ofMillis(10), Duration.ofMillis(50));
    static final Duration DEADLINE = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private String url;
    private final List<BufferedJdbcSink> sinks = new ArrayList<>();

    @BeforeEach
    void database() {
        url = "jdbc:h2:file:" + dir.resolve("acct").toAbsolutePath();
    }

    @AfterEach
    void stopSinks() {
        sinks.forEach(BufferedJdbcSink::close);
    }

    private BufferedJdbcSink sink(BufferedJdbcSink.ConnectionSource source, FlushPolicy policy, int capacity) {
        BufferedJdbcSink s = new BufferedJdbcSink(source, url, Dialect.H2, new FlushSchedule(policy), QUICK, capacity);
        sinks.add(s);
        s.start();
        return s;
    }

    private BufferedJdbcSink sink(FlushPolicy policy) {
        return sink(() -> DriverManager.getConnection(url), policy, 10_000);
    }

    static FlushPolicy policy(int count, long millis) {
        return new FlushPolicy(count, Duration.ofMillis(millis));
    }

    static CallRecord answered(String callId, String node, Instant at) {
        return CallRecord.invite(callId, "sip:alice@atlanta.com", "sip:bob@biloxi.com", node, at, 200,
                at.plusSeconds(2));
    }

    /** One row of acc_calls as text, by column. */
    private Map<String, Map<String, Object>> calls() throws SQLException {
        Map<String, Map<String, Object>> rows = new LinkedHashMap<>();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT * FROM acc_calls ORDER BY call_id")) {
            while (r.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (String column : AccountingSql.CALL_COLUMNS) {
                    Object v = column.endsWith("_at") ? r.getObject(column, OffsetDateTime.class) : r.getObject(column);
                    row.put(column, v instanceof OffsetDateTime t ? t.toInstant() : v);
                }
                rows.put(r.getString("call_id"), row);
            }
        }
        return rows;
    }

    private long count(String table) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            r.next();
            return r.getLong(1);
        }
    }

    private void awaitWritten(BufferedJdbcSink sink, long records) {
        Eventually.until(() -> sink.counts().written() >= records, DEADLINE,
                () -> records + " records written (now " + sink.counts() + ")");
    }

    @Test
    void partialsFromTwoNodesBecomeOneRowWithTheDurationWhicheverIsWrittenFirst() throws Exception {
        BufferedJdbcSink inviteNode = sink(policy(1, 50));
        BufferedJdbcSink byeNode = sink(policy(1, 50));
        inviteNode.offer(answered("invite-first", "10.0.0.2:5060", T0));
        awaitWritten(inviteNode, 1);
        byeNode.offer(CallRecord.bye("invite-first", "10.0.0.3:5060", T0.plusSeconds(62)));
        byeNode.offer(CallRecord.bye("bye-first", "10.0.0.3:5060", T0.plusSeconds(62)));
        awaitWritten(byeNode, 2);
        inviteNode.offer(answered("bye-first", "10.0.0.2:5060", T0));
        awaitWritten(inviteNode, 2);

        Map<String, Map<String, Object>> rows = calls();
        assertEquals(2, rows.size(), rows.toString());
        for (Map<String, Object> row : rows.values()) {
            assertEquals(T0, row.get("started_at"), row.toString());
            assertEquals(T0.plusSeconds(2), row.get("answered_at"), row.toString());
            assertEquals(T0.plusSeconds(62), row.get("ended_at"), row.toString());
            assertEquals(60_000L, ((Number) row.get("duration_ms")).longValue(), row.toString());
            assertEquals(200, ((Number) row.get("status")).intValue(), row.toString());
            assertEquals("sip:alice@atlanta.com", row.get("caller"));
            assertEquals("sip:bob@biloxi.com", row.get("callee"));
            assertEquals("10.0.0.2:5060", row.get("invite_node"));
            assertEquals("10.0.0.3:5060", row.get("bye_node"));
        }
    }

    @Test
    void theDatabaseMergesByTheSameRulesAsTheRecordsWhateverTheOrder() throws Exception {
        BufferedJdbcSink sink = sink(policy(1, 50));
        // A redirected call tried again and answered, hung up by a BYE that also came again through another node.
        Map<String, CallRecord> retried = writeInEveryOrder(sink, "retried", List.of(
                CallRecord.invite("x", "sip:a@x", "sip:b@x", "n1", T0, 302, T0.plusMillis(30)),
                answered("x", "n2", T0.plusMillis(100)),
                CallRecord.bye("x", "n3", T0.plusSeconds(9)),
                CallRecord.bye("x", "n1", T0.plusSeconds(9).plusMillis(500))));
        // A call that failed twice: busy, then (tried again) not available.
        Map<String, CallRecord> failed = writeInEveryOrder(sink, "failed", List.of(
                CallRecord.invite("x", "sip:a@x", "sip:b@x", "n1", T0, 486, T0.plusSeconds(1)),
                CallRecord.invite("x", "sip:a@x", "sip:b@x", "n2", T0.plusSeconds(2), 480, T0.plusSeconds(3))));

        Map<String, Map<String, Object>> rows = calls();
        Map<String, CallRecord> expected = new LinkedHashMap<>(retried);
        expected.putAll(failed);
        for (Map.Entry<String, CallRecord> e : expected.entrySet()) {
            CallRecord call = e.getValue();
            Map<String, Object> row = rows.get(e.getKey());
            String where = call + " gave " + row;
            assertEquals(call.startedAt().orElse(null), row.get("started_at"), where);
            assertEquals(call.answeredAt().orElse(null), row.get("answered_at"), where);
            assertEquals(call.endedAt().orElse(null), row.get("ended_at"), where);
            assertEquals(call.status().getAsInt(), ((Number) row.get("status")).intValue(), where);
            assertEquals(call.duration().map(Duration::toMillis).orElse(null),
                    row.get("duration_ms") == null ? null : ((Number) row.get("duration_ms")).longValue(), where);
            assertEquals(call.inviteNode().orElse(null), row.get("invite_node"), where);
        }
        for (CallRecord call : retried.values()) {
            assertEquals(200, call.status().getAsInt());
            assertEquals(Optional.of(T0.plusSeconds(9)), call.endedAt());
        }
        for (CallRecord call : failed.values()) {
            assertEquals(480, call.status().getAsInt());
            assertEquals(Optional.of(T0.plusSeconds(3)), call.endedAt());
        }
    }

    /**
     * Writes {@code partials} in every order, each order as a call of its own
     * ({@code NAME-I}), a round per position; returns what the records' own
     * rules make of each order.
     */
    private Map<String, CallRecord> writeInEveryOrder(BufferedJdbcSink sink, String name, List<CallRecord> partials) {
        List<List<CallRecord>> orders = permutations(partials);
        long before = sink.counts().written();
        for (int k = 0; k < partials.size(); k++) {
            for (int o = 0; o < orders.size(); o++) {
                sink.offer(withCallId(orders.get(o).get(k), name + "-" + o));
            }
            awaitWritten(sink, before + (long) orders.size() * (k + 1));
        }
        Map<String, CallRecord> merged = new LinkedHashMap<>();
        for (int o = 0; o < orders.size(); o++) {
            merged.put(name + "-" + o, withCallId(orders.get(o).stream().reduce(CallRecord::mergedWith).orElseThrow(),
                    name + "-" + o));
        }
        return merged;
    }

    private static CallRecord withCallId(CallRecord r, String callId) {
        return new CallRecord(callId, r.caller(), r.callee(), r.startedAt(), r.answeredAt(), r.byeAt(), r.failedAt(),
                r.status(), r.inviteNode(), r.byeNode());
    }

    private static <T> List<List<T>> permutations(List<T> items) {
        if (items.size() <= 1) {
            return List.of(items);
        }
        List<List<T>> out = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            List<T> rest = new ArrayList<>(items);
            T first = rest.remove(i);
            for (List<T> tail : permutations(rest)) {
                List<T> p = new ArrayList<>(List.of(first));
                p.addAll(tail);
                out.add(p);
            }
        }
        return out;
    }

    @Test
    void aCallNotAnsweredHasNoDuration() throws Exception {
        BufferedJdbcSink sink = sink(policy(1, 50));
        sink.offer(CallRecord.invite("busy", "sip:a@x", "sip:b@x", "n1", T0, 486, T0.plusSeconds(4)));
        awaitWritten(sink, 1);
        Map<String, Object> row = calls().get("busy");
        assertEquals(486, ((Number) row.get("status")).intValue());
        assertEquals(T0.plusSeconds(4), row.get("ended_at"));
        assertEquals(null, row.get("answered_at"));
        assertEquals(null, row.get("duration_ms"));
    }

    @Test
    void aDatabaseThatGoesAwayLosesNothingTheBufferHolds() throws Exception {
        SwitchableDatabase db = new SwitchableDatabase(url);
        BufferedJdbcSink sink = sink(db, policy(20, 30), 10_000);
        for (int i = 0; i < 100; i++) {
            sink.offer(answered("before-" + i, "n1", T0));
        }
        awaitWritten(sink, 100);

        db.goDown();
        for (int i = 0; i < 500; i++) {
            sink.offer(answered("during-" + i, "n1", T0));
            sink.offer(CallRecord.bye("during-" + i, "n2", T0.plusSeconds(5)));
        }
        Eventually.until(() -> sink.counts().flushFailures() >= 3 && db.refused() >= 2, DEADLINE,
                () -> "failed flushes and refused reconnections (" + sink.counts() + ")");
        assertEquals(100, sink.counts().written(), sink.counts().toString());
        assertEquals(1_000, sink.counts().pending(), sink.counts().toString());

        db.comeBack();
        awaitWritten(sink, 1_100);
        AccountingCounts after = sink.counts();
        assertEquals(0, after.pending(), after.toString());
        assertEquals(0, after.dropped(), after.toString());
        assertEquals(600, count("acc_calls"));
        assertEquals(3_000L, ((Number) calls().get("during-499").get("duration_ms")).longValue());
    }

    @Test
    void aFullBufferDropsAndCountsWhatItCannotHoldWithoutWaiting() throws Exception {
        SwitchableDatabase db = new SwitchableDatabase(url);
        db.goDown();
        BufferedJdbcSink sink = sink(db, policy(1, 10), 10);
        long started = System.nanoTime();
        for (int i = 0; i < 25; i++) {
            sink.offer(answered("c" + i, "n1", T0));
        }
        long tookMillis = (System.nanoTime() - started) / 1_000_000;
        assertTrue(tookMillis < 1_000, "offering 25 records took " + tookMillis + " ms");
        assertEquals(15, sink.counts().dropped(), sink.counts().toString());
        assertEquals(10, sink.counts().pending(), sink.counts().toString());

        db.comeBack();
        awaitWritten(sink, 10);
        assertEquals(10, count("acc_calls"));
        assertEquals(15, sink.counts().dropped());
    }

    @Test
    void aRecordTheDatabaseRefusesIsDroppedAndTheRestOfItsBatchWritten() throws Exception {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            // A table made by hand with a narrower column than the node writes.
            s.execute(AccountingSql.schema(Dialect.H2).get(0).replace("caller VARCHAR(255)", "caller VARCHAR(24)"));
        }
        SwitchableDatabase db = new SwitchableDatabase(url);
        db.goDown();
        BufferedJdbcSink sink = sink(db, policy(3, 10), 100);
        sink.offer(answered("fits-1", "n1", T0));
        sink.offer(CallRecord.invite("too-long", "sip:someone-with-a-longer-name@atlanta.com", "sip:b@x", "n1", T0, 200, T0));
        sink.offer(answered("fits-2", "n1", T0).mergedWith(CallRecord.bye("fits-2", "n2", T0.plusSeconds(3))));
        db.comeBack();
        Eventually.until(() -> sink.counts().pending() == 0, DEADLINE, () -> "the batch settled: " + sink.counts());
        assertEquals(List.of("fits-1", "fits-2"), List.copyOf(calls().keySet()));
        assertEquals(1, sink.counts().dropped(), sink.counts().toString());
        assertEquals(2, sink.counts().written(), sink.counts().toString());

        sink.offer(answered("fits-3", "n1", T0));
        awaitWritten(sink, 3);
    }

    @Test
    void registrationChangesAreAppended() throws Exception {
        BufferedJdbcSink sink = sink(policy(1, 10));
        BindingChange added = new BindingChange("sip:alice@10.0.0.9:5060", BindingChange.Kind.ADDED, 3600);
        BindingChange removed = new BindingChange("sip:alice@10.0.0.9:5060", BindingChange.Kind.REMOVED, 0);
        sink.offer(RegistrationRecord.of(T0, "n1", "sip:alice@atlanta.com", added, "reg-1", 1));
        sink.offer(RegistrationRecord.of(T0.plusSeconds(5), "n2", "sip:alice@atlanta.com", removed, "reg-1", 2));
        awaitWritten(sink, 2);
        List<String> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT changed_at, node, aor, contact, expires, call_id, cseq, change "
                     + "FROM acc_registrations ORDER BY changed_at")) {
            while (r.next()) {
                rows.add(r.getObject(1, OffsetDateTime.class).toInstant() + " " + r.getString(2) + " " + r.getString(3)
                        + " " + r.getString(4) + " " + r.getLong(5) + " " + r.getString(6) + " " + r.getLong(7) + " "
                        + r.getString(8));
            }
        }
        assertEquals(List.of(
                T0 + " n1 sip:alice@atlanta.com sip:alice@10.0.0.9:5060 3600 reg-1 1 added",
                T0.plusSeconds(5) + " n2 sip:alice@atlanta.com sip:alice@10.0.0.9:5060 0 reg-1 2 removed"), rows);
    }

    @Test
    void theFlushIntervalWritesAFewRecordsLongBeforeTheCountIsReached() throws Exception {
        BufferedJdbcSink sink = sink(policy(1_000, 100));
        sink.offer(answered("lonely", "n1", T0));
        awaitWritten(sink, 1);
        assertEquals(1, count("acc_calls"));
    }

    @Test
    void theFlushCountWritesABatchLongBeforeTheIntervalEnds() throws Exception {
        BufferedJdbcSink sink = sink(policy(50, 600_000));
        for (int i = 0; i < 49; i++) {
            sink.offer(answered("batch-" + i, "n1", T0));
        }
        sink.offer(answered("the-fiftieth", "n1", T0));
        awaitWritten(sink, 50);
        assertEquals(50, count("acc_calls"));
        assertEquals(new AccountingCounts(50, 0, 0, 0), sink.counts());
    }

    @Test
    void stoppingWritesWhatIsWaiting() throws Exception {
        BufferedJdbcSink sink = sink(policy(1_000, 600_000));
        for (int i = 0; i < 5; i++) {
            sink.offer(answered("waiting-" + i, "n1", T0));
        }
        sink.close();
        assertEquals(5, count("acc_calls"));
        assertEquals(new AccountingCounts(5, 0, 0, 0), sink.counts());
        sink.offer(answered("too-late", "n1", T0));
        assertEquals(1, sink.counts().dropped());
    }

    @Test
    void stoppingGivesUpOnADatabaseThatStaysAwayAndCountsWhatWasLost() throws Exception {
        SwitchableDatabase db = new SwitchableDatabase(url);
        db.goDown();
        BufferedJdbcSink sink = sink(db, policy(1, 10), 100);
        for (int i = 0; i < 3; i++) {
            sink.offer(answered("lost-" + i, "n1", T0));
        }
        long started = System.nanoTime();
        sink.close(Duration.ofMillis(300));
        long tookMillis = (System.nanoTime() - started) / 1_000_000;
        assertTrue(tookMillis < 3_000, "stopping took " + tookMillis + " ms");
        assertEquals(3, sink.counts().dropped(), sink.counts().toString());
        assertEquals(0, sink.counts().pending(), sink.counts().toString());
    }
}
