package org.p2psip.servlet.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;

import org.p2psip.servlet.accounting.AccountingDatabase;
import org.p2psip.servlet.accounting.AccountingExport;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code p2psip acct export}: the calls the nodes accounted, for a person
 * who wants them in a spreadsheet (Kamailio keeps its acc table for the
 * same readers). Reads the PostgreSQL database the nodes write to, or a
 * node's embedded one in its data directory, also while the node runs.
 */
@Command(name = "acct", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Read the call accounting the nodes keep (node --acct-db, or the embedded database of "
                + "node --data-dir).",
        subcommands = {AcctCommand.Export.class})
final class AcctCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing command: export");
    }

    @Command(name = "export", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            sortOptions = false,
            description = {"Write the calls that started from --since to --until to standard output as CSV "
                    + "(RFC 4180; the only format for now): a header line, then one line per call, oldest first, "
                    + "with call_id, caller, callee, started_at, answered_at, ended_at, duration_ms (answer to "
                    + "end), status (the INVITE's final answer), invite_node and bye_node (the nodes that proxied "
                    + "the INVITE and the BYE). Times are UTC, written 2026-11-27 10:00:00.123; a call not "
                    + "answered has no answer time and no duration, one still going no end. A text field "
                    + "starting with =, +, - or @ gets a leading ' so that no spreadsheet runs it as a formula.",
                    "",
                    "Example: p2psip acct export --db jdbc:postgresql://db/acct?user=p2psip --since 2026-11-01 "
                            + "--until 2026-12-01 > november.csv"})
    static final class Export implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Option(names = "--db", paramLabel = "URL",
                description = "The database the nodes account to (their --acct-db): "
                        + "jdbc:postgresql://HOST:PORT/DB?user=U&password=P or a jdbc:h2: URL.")
        String database;

        @Option(names = "--data-dir", paramLabel = "DIR",
                description = "Instead of --db: the embedded database a node keeps in its --data-dir DIR "
                        + "(DIR/accounting), read also while that node runs.")
        Path dataDir;

        @Option(names = "--since", required = true, paramLabel = "TIME", converter = TimeConverter.class,
                description = "Calls that started at or after TIME: an ISO 8601 instant such as "
                        + "2026-11-27T10:00:00Z, or a date such as 2026-11-27 (its midnight, UTC).")
        Instant since;

        @Option(names = "--until", paramLabel = "TIME", converter = TimeConverter.class,
                description = "Calls that started before TIME (same forms; a date means its midnight, so "
                        + "--since 2026-11-27 --until 2026-11-28 is that one day). Default: no end.")
        Instant until;

        @Option(names = "--csv", description = "CSV output, the only format there is (and so the default).")
        boolean csv;

        @Override
        public Integer call() {
            AccountingDatabase db = database();
            AccountingExport export;
            try {
                export = new AccountingExport(since, Optional.ofNullable(until));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            PrintWriter out = spec.commandLine().getOut();
            try (Connection c = db.connect()) {
                export.writeCsv(c, out);
            } catch (SQLException e) {
                OneLineErrors.print(spec.commandLine(), explain(db, e));
                return OneLineErrors.FAILURE;
            } catch (IOException e) {
                OneLineErrors.print(spec.commandLine(), "cannot write the export: " + e.getMessage());
                return OneLineErrors.FAILURE;
            }
            if (out.checkError()) {
                OneLineErrors.print(spec.commandLine(), "cannot write the export to standard output");
                return OneLineErrors.FAILURE;
            }
            return 0;
        }

        private AccountingDatabase database() {
            if ((database == null) == (dataDir == null)) {
                throw new ParameterException(spec.commandLine(), database == null
                        ? "say which database to read: --db URL, or --data-dir DIR for a node's embedded one"
                        : "--db and --data-dir both name the database; give one of them");
            }
            if (dataDir != null) {
                if (!Files.isDirectory(dataDir)) {
                    throw new ParameterException(spec.commandLine(), "--data-dir " + dataDir + " is no directory");
                }
                return AccountingDatabase.embedded(dataDir).existingOnly();
            }
            try {
                return AccountingDatabase.parse(database);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--db: " + e.getMessage());
            }
        }

        /** One line that says what went wrong in terms of what the user gave. */
        private String explain(AccountingDatabase db, SQLException e) {
            String state = e.getSQLState() == null ? "" : e.getSQLState();
            String first = firstLine(e);
            if (state.equals("90146") || state.equals("90013")) {
                return "no accounting database in " + dataDir + " (no node with --data-dir " + dataDir
                        + " has accounted a call yet)";
            }
            if (state.equals("42P01") || state.equals("42S02") || state.equals("42S04")) {
                return db.redacted() + " has no acc_calls table: no node has accounted to it yet";
            }
            return "cannot read the accounting database " + db.redacted() + ": " + first;
        }

        private static String firstLine(SQLException e) {
            String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            int nl = m.indexOf('\n');
            return (nl < 0 ? m : m.substring(0, nl)).strip();
        }
    }
}
