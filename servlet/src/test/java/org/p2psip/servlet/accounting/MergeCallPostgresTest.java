package org.p2psip.servlet.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.testing.Eventually;
import org.p2psip.core.testing.PostgresServer;
import org.p2psip.servlet.accounting.AccountingDatabase.Dialect;

/**
 * {@link AccountingSql#mergeCall} against a real PostgreSQL server: the
 * race two nodes run when each writes one partial of the same call at the
 * same moment, as they do flushing their backlogs after an outage.
 */
@Timeout(120)
class MergeCallPostgresTest {

    @TempDir
    static Path work;

    private static PostgresServer postgres;
    private static String url;

    @BeforeAll
    static void startPostgres() throws Exception {
        postgres = PostgresServer.start(work.resolve("postgres"));
        postgres.createDatabase("acct");
        url = postgres.url("acct");
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            for (String ddl : AccountingSql.schema(Dialect.POSTGRESQL)) {
                s.execute(ddl);
            }
        }
    }

    @AfterAll
    static void stopPostgres() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void aPartialThatMeetsAnotherNodesUncommittedInsertWaitsAndMergesIntoIt() throws Exception {
        Instant invited = Instant.parse("2026-12-01T06:00:00.000Z");
        Instant answered = invited.plusMillis(40);
        Instant hungUp = answered.plusSeconds(1);
        String callId = "race-1@127.0.0.1";
        try (Connection first = transaction(); Connection second = transaction()) {
            write(first, CallRecord.invite(callId, "sip:a@p2psip.test", "sip:b@p2psip.test", "node-a", invited, 200,
                    answered));
            CompletableFuture<Void> byeWritten = CompletableFuture.runAsync(() -> {
                try {
                    write(second, CallRecord.bye(callId, "node-b", hungUp));
                    second.commit();
                } catch (SQLException e) {
                    throw new IllegalStateException("SQLState " + e.getSQLState() + ": " + e.getMessage(), e);
                }
            });
            Eventually.until(() -> sessionsWaitingForALock() == 1, Duration.ofSeconds(20),
                    () -> "the second writer waiting for the first one's insert");
            first.commit();
            byeWritten.get(20, TimeUnit.SECONDS);
        }
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT status, invite_node, bye_node, duration_ms FROM acc_calls "
                     + "WHERE call_id = '" + callId + "'")) {
            r.next();
            assertEquals(200, r.getInt(1));
            assertEquals("node-a", r.getString(2));
            assertEquals("node-b", r.getString(3));
            assertEquals(1_000, r.getLong(4));
        }
    }

    private static Connection transaction() throws SQLException {
        Connection c = DriverManager.getConnection(url);
        c.setAutoCommit(false);
        return c;
    }

    private static void write(Connection c, CallRecord record) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(AccountingSql.mergeCall(Dialect.POSTGRESQL))) {
            AccountingSql.bind(s, record);
            s.executeUpdate();
        }
    }

    private static int sessionsWaitingForALock() {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")) {
            r.next();
            return r.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
