package org.p2psip.servlet.accounting;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

import org.p2psip.servlet.accounting.AccountingDatabase.Dialect;

/**
 * The accounting tables and the statements that write and read them, one
 * text for PostgreSQL (15 and later) and H2 (2.x) but for the keyword of a
 * computed column and the statement that merges a call.
 *
 * <p>{@code acc_calls} has one row per call, merged from the partial
 * records nodes write ({@link CallRecord}) by {@link #mergeCall}. Times
 * are {@code TIMESTAMP(3) WITH TIME ZONE}: UTC instants to the
 * millisecond. The database computes {@code ended_at} (the hang-up of an
 * answered call, else its failure: {@link CallRecord#endedAt}) and
 * {@code duration_ms} (answer to hang-up) from the columns the nodes write,
 * {@code bye_at} and {@code failed_at} among them.
 *
 * <p>{@code acc_registrations} gets a row per binding a REGISTER changed
 * and is never updated.
 */
final class AccountingSql {

    static final String CALLS = "acc_calls";
    static final String REGISTRATIONS = "acc_registrations";

    private static final String TIME = "TIMESTAMP(3) WITH TIME ZONE";
    private static final String LONG_TEXT = "VARCHAR(" + ColumnText.LONG + ")";
    private static final String SHORT_TEXT = "VARCHAR(" + ColumnText.SHORT + ")";

    private static final String CALL_ROW =
            "(call_id, caller, callee, started_at, answered_at, bye_at, failed_at, status, invite_node, bye_node)";
    private static final String CALL_PARAMETERS = "(CAST(? AS " + LONG_TEXT + "), CAST(? AS " + LONG_TEXT + "), "
            + "CAST(? AS " + LONG_TEXT + "), CAST(? AS " + TIME + "), CAST(? AS " + TIME + "), CAST(? AS " + TIME
            + "), CAST(? AS " + TIME + "), CAST(? AS SMALLINT), CAST(? AS " + SHORT_TEXT + "), CAST(? AS "
            + SHORT_TEXT + "))";

    /**
     * The statement that writes one partial call record: inserts the row,
     * or merges it into the row another partial made, by the rules of
     * {@link CallRecord#mergedWith} (the row's values are the earlier, the
     * statement's the later). Every parameter is cast so that a NULL has a
     * type for PostgreSQL to plan with.
     *
     * <p>H2 takes the SQL-standard {@code MERGE}. PostgreSQL gets
     * {@code INSERT ... ON CONFLICT DO UPDATE}: its {@code MERGE} does not
     * wait out a concurrent insert of the same Call-ID but fails on the
     * unique key, and two nodes flushing the partials of the same calls
     * after an outage can lose that race batch after batch; the upsert
     * waits for the other transaction and then updates its row.
     */
    static String mergeCall(Dialect dialect) {
        if (dialect == Dialect.POSTGRESQL) {
            return "INSERT INTO " + CALLS + " AS t " + CALL_ROW + " VALUES " + CALL_PARAMETERS
                    + " ON CONFLICT (call_id) DO UPDATE SET " + mergedColumns("EXCLUDED");
        }
        return "MERGE INTO " + CALLS + " t USING (VALUES " + CALL_PARAMETERS + ") AS s " + CALL_ROW
                + " ON t.call_id = s.call_id WHEN MATCHED THEN UPDATE SET " + mergedColumns("s")
                + " WHEN NOT MATCHED THEN INSERT " + CALL_ROW + " VALUES (s.call_id, s.caller, s.callee, "
                + "s.started_at, s.answered_at, s.bye_at, s.failed_at, s.status, s.invite_node, s.bye_node)";
    }

    /** The SET list that merges the statement's values, named {@code s}, into the row {@code t}. */
    private static String mergedColumns(String s) {
        return "caller = COALESCE(" + s + ".caller, t.caller), "
                + "callee = COALESCE(" + s + ".callee, t.callee), "
                + "started_at = " + earlier(s, "started_at") + ", "
                + "answered_at = " + earlier(s, "answered_at") + ", "
                + "bye_at = " + earlier(s, "bye_at") + ", "
                + "failed_at = " + later(s, "failed_at") + ", "
                + "status = CASE WHEN " + s + ".status BETWEEN 200 AND 299 THEN " + s + ".status "
                + "WHEN t.status BETWEEN 200 AND 299 THEN t.status "
                + "WHEN " + s + ".failed_at IS NOT NULL AND (t.failed_at IS NULL OR " + s + ".failed_at >= t.failed_at) "
                + "THEN " + s + ".status ELSE COALESCE(t.status, " + s + ".status) END, "
                + "invite_node = COALESCE(" + s + ".invite_node, t.invite_node), "
                + "bye_node = COALESCE(" + s + ".bye_node, t.bye_node)";
    }

    static final String INSERT_REGISTRATION = "INSERT INTO " + REGISTRATIONS
            + " (changed_at, node, aor, contact, expires, call_id, cseq, change) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

    /** The columns of {@code acc_calls} in the order {@link #selectCalls} reads them and export writes them. */
    static final List<String> CALL_COLUMNS = List.of("call_id", "caller", "callee", "started_at", "answered_at",
            "ended_at", "duration_ms", "status", "invite_node", "bye_node");

    private AccountingSql() {
    }

    /** The statements that create whatever of the tables and indexes is missing. */
    static List<String> schema(Dialect dialect) {
        return List.of(
                "CREATE TABLE IF NOT EXISTS " + CALLS + " ("
                        + "call_id " + LONG_TEXT + " NOT NULL PRIMARY KEY, "
                        + "caller " + LONG_TEXT + ", "
                        + "callee " + LONG_TEXT + ", "
                        + "started_at " + TIME + ", "
                        + "answered_at " + TIME + ", "
                        + "ended_at " + dialect.generatedColumn(TIME,
                                "CASE WHEN status BETWEEN 200 AND 299 THEN bye_at ELSE COALESCE(failed_at, bye_at) END")
                        + ", "
                        + "duration_ms " + dialect.generatedColumn("BIGINT",
                                "CAST(EXTRACT(EPOCH FROM (bye_at - answered_at)) * 1000 AS BIGINT)") + ", "
                        + "status SMALLINT, "
                        + "invite_node " + SHORT_TEXT + ", "
                        + "bye_node " + SHORT_TEXT + ", "
                        + "bye_at " + TIME + ", "
                        + "failed_at " + TIME + ")",
                "CREATE INDEX IF NOT EXISTS acc_calls_started_at ON " + CALLS + " (started_at)",
                "CREATE TABLE IF NOT EXISTS " + REGISTRATIONS + " ("
                        + "changed_at " + TIME + " NOT NULL, "
                        + "node " + SHORT_TEXT + " NOT NULL, "
                        + "aor " + LONG_TEXT + " NOT NULL, "
                        + "contact " + LONG_TEXT + " NOT NULL, "
                        + "expires BIGINT NOT NULL, "
                        + "call_id " + LONG_TEXT + " NOT NULL, "
                        + "cseq BIGINT NOT NULL, "
                        + "change VARCHAR(9) NOT NULL)",
                "CREATE INDEX IF NOT EXISTS acc_registrations_changed_at ON " + REGISTRATIONS + " (changed_at)");
    }

    /** The calls started from {@code since} (inclusive) to {@code until} (exclusive, if given), oldest first. */
    static String selectCalls(boolean bounded) {
        return "SELECT " + String.join(", ", CALL_COLUMNS) + " FROM " + CALLS + " WHERE started_at >= ?"
                + (bounded ? " AND started_at < ?" : "") + " ORDER BY started_at, call_id";
    }

    static void bind(PreparedStatement s, CallRecord r) throws SQLException {
        s.setString(1, r.callId());
        text(s, 2, r.caller());
        text(s, 3, r.callee());
        time(s, 4, r.startedAt());
        time(s, 5, r.answeredAt());
        time(s, 6, r.byeAt());
        time(s, 7, r.failedAt());
        if (r.status().isPresent()) {
            s.setShort(8, (short) r.status().getAsInt());
        } else {
            s.setNull(8, Types.SMALLINT);
        }
        text(s, 9, r.inviteNode());
        text(s, 10, r.byeNode());
    }

    static void bind(PreparedStatement s, RegistrationRecord r) throws SQLException {
        s.setObject(1, utc(r.at()));
        s.setString(2, r.node());
        s.setString(3, r.aor());
        s.setString(4, r.contact());
        s.setLong(5, r.expires());
        s.setString(6, r.callId());
        s.setLong(7, r.cseq());
        s.setString(8, r.change().label());
    }

    static OffsetDateTime utc(Instant at) {
        return at.atOffset(ZoneOffset.UTC);
    }

    private static void text(PreparedStatement s, int index, Optional<String> value) throws SQLException {
        if (value.isPresent()) {
            s.setString(index, value.get());
        } else {
            s.setNull(index, Types.VARCHAR);
        }
    }

    private static void time(PreparedStatement s, int index, Optional<Instant> value) throws SQLException {
        if (value.isPresent()) {
            s.setObject(index, utc(value.get()));
        } else {
            s.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        }
    }

    /** The earlier of the row's and the statement's ({@code s}) value, either when the other is NULL. */
    private static String earlier(String s, String column) {
        return pick(s, column, "<");
    }

    /** The later of the row's and the statement's ({@code s}) value, either when the other is NULL. */
    private static String later(String s, String column) {
        return pick(s, column, ">");
    }

    private static String pick(String s, String column, String wins) {
        String mine = s + "." + column;
        String row = "t." + column;
        return "CASE WHEN " + row + " IS NULL THEN " + mine + " WHEN " + mine + " IS NULL THEN " + row
                + " WHEN " + mine + " " + wins + " " + row + " THEN " + mine + " ELSE " + row + " END";
    }
}
