package org.p2psip.servlet.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.p2psip.core.store.FlushPolicy;
import org.p2psip.servlet.accounting.AccountingDatabase;
import org.p2psip.servlet.accounting.BufferedJdbcSink;
import org.p2psip.servlet.accounting.CallRecord;

import picocli.CommandLine;

/**
 * {@code p2psip acct export} on a node's embedded accounting database, and
 * the one-line answers to what it and {@code node}'s accounting flags
 * cannot use.
 */
class AcctCommandTest {

    static final Instant DAY = Instant.parse("2026-11-27T00:00:00Z");

    @TempDir
    Path dataDir;

    private record Run(int exit, String out, String err) {
        List<String> errLines() {
            return err.lines().filter(l -> !l.isBlank()).toList();
        }
    }

    private static Run run(String... args) {
        CommandLine cl = P2psip.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    /** Calls as a node with --data-dir accounts them, written before the export runs. */
    private void account(CallRecord... records) {
        try (BufferedJdbcSink sink = BufferedJdbcSink.start(AccountingDatabase.embedded(dataDir),
                new FlushPolicy(100, Duration.ofMillis(10)), 100)) {
            for (CallRecord r : records) {
                sink.offer(r);
            }
        }
    }

    private void accountADayOfCalls() {
        Instant morning = DAY.plusSeconds(9 * 3600);
        account(CallRecord.invite("yesterday@h", "sip:a@x", "sip:b@x", "10.0.0.2:5060", DAY.minusSeconds(60), 200,
                        DAY.minusSeconds(55)),
                CallRecord.invite("c2@h", "sip:carol@x", "sip:dave@x", "10.0.0.3:5060", morning.plusSeconds(60), 486,
                        morning.plusMillis(63_250)),
                CallRecord.invite("c1@h", "sip:alice@x", "sip:bob@x", "10.0.0.2:5060", morning, 200,
                        morning.plusMillis(2_500)),
                CallRecord.bye("c1@h", "10.0.0.4:5060", morning.plusMillis(62_500)),
                CallRecord.invite("=cmd|' /C calc'!A0", "sip:\"mallory, inc\"@x", "sip:b@x", "10.0.0.2:5060",
                        morning.plusSeconds(120), 200, morning.plusSeconds(121)),
                CallRecord.invite("tomorrow@h", "sip:a@x", "sip:b@x", "10.0.0.2:5060", DAY.plusSeconds(86_400), 200,
                        DAY.plusSeconds(86_401)));
    }

    @Test
    void exportWritesTheCallsStartedInTheIntervalOldestFirstAsCsv() {
        accountADayOfCalls();
        Run r = run("acct", "export", "--data-dir", dataDir.toString(), "--since", "2026-11-27", "--until",
                "2026-11-28", "--csv");

        assertEquals(0, r.exit(), r.err());
        assertEquals(""
                + "call_id,caller,callee,started_at,answered_at,ended_at,duration_ms,status,invite_node,bye_node\r\n"
                + "c1@h,sip:alice@x,sip:bob@x,2026-11-27 09:00:00.000,2026-11-27 09:00:02.500,"
                + "2026-11-27 09:01:02.500,60000,200,10.0.0.2:5060,10.0.0.4:5060\r\n"
                + "c2@h,sip:carol@x,sip:dave@x,2026-11-27 09:01:00.000,,2026-11-27 09:01:03.250,,486,10.0.0.3:5060,\r\n"
                + "'=cmd|' /C calc'!A0,\"sip:\"\"mallory, inc\"\"@x\",sip:b@x,2026-11-27 09:02:00.000,"
                + "2026-11-27 09:02:01.000,,,200,10.0.0.2:5060,\r\n", r.out());
        assertEquals("", r.err());
    }

    @Test
    void anInstantStartsTheIntervalAndNoEndTakesEverythingAfter() {
        accountADayOfCalls();
        Run r = run("acct", "export", "--data-dir", dataDir.toString(), "--since", "2026-11-27T09:01:00Z");

        assertEquals(0, r.exit(), r.err());
        List<String> ids = r.out().lines().skip(1).map(l -> l.substring(0, l.indexOf(','))).toList();
        assertEquals(List.of("c2@h", "'=cmd|' /C calc'!A0", "tomorrow@h"), ids);
    }

    @Test
    void helpSaysCsvIsTheOnlyFormatAndGivesAnExample() {
        Run r = run("acct", "export", "--help");

        assertEquals(0, r.exit());
        assertTrue(r.out().contains("the only format"), r.out());
        assertTrue(r.out().contains("--since") && r.out().contains("Example: p2psip acct export"), r.out());
    }

    @Test
    void aTimeThatIsNoTimeIsAOneLineUsageError() {
        Run r = run("acct", "export", "--data-dir", dataDir.toString(), "--since", "yesterday");

        assertEquals(2, r.exit());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("'yesterday' is not a time") && r.err().contains("2026-11-27T10:00:00Z"), r.err());
    }

    @Test
    void anIntervalThatEndsBeforeItStartsIsAOneLineUsageError() {
        Run r = run("acct", "export", "--data-dir", dataDir.toString(), "--since", "2026-11-28", "--until",
                "2026-11-27");

        assertEquals(2, r.exit());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("must come after its start"), r.err());
    }

    @Test
    void theDatabaseMustBeNamedOnceAndByAUrlItCanRead() {
        Run none = run("acct", "export", "--since", "2026-11-27");
        Run both = run("acct", "export", "--since", "2026-11-27", "--db", "jdbc:h2:mem:x", "--data-dir",
                dataDir.toString());
        Run mysql = run("acct", "export", "--since", "2026-11-27", "--db", "jdbc:mysql://db/acct?password=s3cr3t");

        for (Run r : List.of(none, both, mysql)) {
            assertEquals(2, r.exit(), r.err());
            assertEquals(1, r.errLines().size(), r.err());
        }
        assertTrue(none.err().contains("--db URL, or --data-dir DIR"), none.err());
        assertTrue(both.err().contains("give one of them"), both.err());
        assertTrue(mysql.err().contains("jdbc:postgresql://HOST:PORT/DB"), mysql.err());
        assertFalse(mysql.err().contains("s3cr3t"), mysql.err());
    }

    @Test
    void aDataDirectoryWithoutAccountingIsAOneLineFailureAndStaysWithoutIt() throws Exception {
        Run r = run("acct", "export", "--data-dir", dataDir.toString(), "--since", "2026-11-27");

        assertEquals(1, r.exit());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("no accounting database in " + dataDir), r.err());
        try (var files = Files.list(dataDir)) {
            assertEquals(List.of(), files.toList(), "reading must not create a database");
        }
    }

    @Test
    void aDatabaseNobodyAccountedToIsAOneLineFailure() {
        Run r = run("acct", "export", "--db", "jdbc:h2:mem:empty-" + System.nanoTime(), "--since", "2026-11-27");

        assertEquals(1, r.exit());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("has no acc_calls table"), r.err());
    }

    @Test
    void anUnreachableDatabaseIsAOneLineFailureWithoutThePassword() {
        Run r = run("acct", "export", "--db", "jdbc:postgresql://127.0.0.1:1/acct?user=u&password=s3cr3t",
                "--since", "2026-11-27");

        assertEquals(1, r.exit());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("cannot read the accounting database jdbc:postgresql://127.0.0.1:1/acct"), r.err());
        assertFalse(r.err().contains("s3cr3t"), r.err());
    }

    @Test
    void aNodeRefusesAnAccountingUrlItCannotWriteTo() {
        Run r = run("node", "--sip", "127.0.0.1:5060", "--acct-db", "mysql://db/acct");

        assertEquals(2, r.exit());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("--acct-db") && r.err().contains("jdbc:postgresql://HOST:PORT/DB"), r.err());
    }

    @Test
    void aNodeAccountsRegistrationsOnlyIntoADatabase() {
        Run r = run("node", "--sip", "127.0.0.1:5060", "--acct-registrations");

        assertEquals(2, r.exit());
        assertEquals(1, r.errLines().size(), r.err());
        assertTrue(r.err().contains("--acct-registrations needs a database"), r.err());
    }

    @Test
    void anEmptyAccountingBufferIsRefused() {
        Run r = run("node", "--sip", "127.0.0.1:5060", "--acct-db", "jdbc:h2:mem:x", "--acct-buffer", "0");

        assertEquals(2, r.exit());
        assertTrue(r.err().contains("--acct-buffer must be at least 1"), r.err());
    }
}
