package org.p2psip.servlet.accounting;

import java.io.IOException;
import java.io.Writer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code acct export}: the calls of {@code acc_calls} that started in an
 * interval, oldest first, as CSV ({@link Rfc4180Csv}) with a header line.
 * Times are UTC, written {@code 2026-11-27 10:00:00.123}, the form
 * spreadsheets read as a date and time; durations in milliseconds; a
 * field the database has no value for is empty (a call not answered has
 * no answer time and no duration).
 *
 * @param since the first start time included
 * @param until the first start time no longer included; empty: no end
 */
public record AccountingExport(Instant since, Optional<Instant> until) {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSS");
    /** Rows the driver fetches at a time, so a long export is streamed rather than held in memory. */
    private static final int FETCH = 1_000;

    public AccountingExport {
        Objects.requireNonNull(since, "since");
        Objects.requireNonNull(until, "until");
        if (until.isPresent() && !until.get().isAfter(since)) {
            throw new IllegalArgumentException("the end of the interval (" + until.get()
                    + ") must come after its start (" + since + ")");
        }
    }

    /**
     * Writes the header and one line per call to {@code out}.
     *
     * @return the calls written
     */
    public long writeCsv(Connection db, Writer out) throws SQLException, IOException {
        out.write(Rfc4180Csv.line(AccountingSql.CALL_COLUMNS));
        boolean autoCommit = db.getAutoCommit();
        // PostgreSQL's driver streams a result only inside a transaction.
        db.setAutoCommit(false);
        long rows = 0;
        try (PreparedStatement s = db.prepareStatement(AccountingSql.selectCalls(until.isPresent()))) {
            s.setFetchSize(FETCH);
            s.setObject(1, AccountingSql.utc(since));
            if (until.isPresent()) {
                s.setObject(2, AccountingSql.utc(until.get()));
            }
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.write(Rfc4180Csv.line(row(r)));
                    rows++;
                }
            }
            db.commit();
        } finally {
            db.setAutoCommit(autoCommit);
        }
        out.flush();
        return rows;
    }

    /** The fields of the current row, in {@link AccountingSql#CALL_COLUMNS} order. */
    private static List<String> row(ResultSet r) throws SQLException {
        List<String> fields = new ArrayList<>(AccountingSql.CALL_COLUMNS.size());
        fields.add(Rfc4180Csv.inert(r.getString("call_id")));
        fields.add(Rfc4180Csv.inert(r.getString("caller")));
        fields.add(Rfc4180Csv.inert(r.getString("callee")));
        fields.add(time(r, "started_at"));
        fields.add(time(r, "answered_at"));
        fields.add(time(r, "ended_at"));
        fields.add(number(r, "duration_ms"));
        fields.add(number(r, "status"));
        fields.add(Rfc4180Csv.inert(r.getString("invite_node")));
        fields.add(Rfc4180Csv.inert(r.getString("bye_node")));
        return fields;
    }

    private static String time(ResultSet r, String column) throws SQLException {
        OffsetDateTime t = r.getObject(column, OffsetDateTime.class);
        return t == null ? null : TIME.format(t.withOffsetSameInstant(ZoneOffset.UTC));
    }

    private static String number(ResultSet r, String column) throws SQLException {
        long v = r.getLong(column);
        return r.wasNull() ? null : Long.toString(v);
    }
}
