package org.p2psip.servlet.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.p2psip.core.store.FlushPolicy;
import org.p2psip.servlet.accounting.AccountingDatabase;
import org.p2psip.servlet.accounting.AccountingSettings;

import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --acct-db}, {@code --acct-registrations} and {@code --acct-buffer}:
 * where a node accounts its calls and how many records it holds while the
 * database is away. {@code node} turns them into its
 * {@link AccountingSettings}; {@code cluster} hands them to every node it
 * starts, the URL (which may hold a password) through the environment
 * ({@value #ENV}), so it stays out of the process list.
 */
final class AccountingOptions {

    /** The environment variable a node takes the database URL from when {@code --acct-db} is not given. */
    static final String ENV = "P2PSIP_ACCT_DB";
    /** The {@code --acct-db} value that turns accounting off, also for a node with {@code --data-dir}. */
    static final String NONE = "none";

    @Option(names = "--acct-db", paramLabel = "URL",
            description = "Account every call (one row per call in acc_calls: Call-ID, caller, callee, start, answer, "
                    + "end, duration, status, the nodes that proxied its INVITE and its BYE) to this database: "
                    + "jdbc:postgresql://HOST:PORT/DB?user=U&password=P, or a jdbc:h2: URL. Tables are created if "
                    + "missing. Records are written behind in batches (--flush-count, --flush-ms); while the "
                    + "database is away they wait in memory (--acct-buffer) and SIP handling never waits. A URL "
                    + "with a password is better kept out of the process list: in a --config file only this user "
                    + "can read, or in the environment variable " + ENV + ". 'none': no accounting. Default: "
                    + ENV + "; else with --data-dir the embedded database DIR/accounting; else none.")
    String database;

    @Option(names = "--acct-registrations",
            description = "Also account each binding a REGISTER adds, refreshes or removes (acc_registrations).")
    boolean registrations;

    @Option(names = "--acct-buffer", paramLabel = "N",
            description = "Most accounting records held in memory while they wait to be written; more are dropped "
                    + "and counted (p2psip_acct_records_dropped_total). Default: ${DEFAULT-VALUE}.")
    int buffer = AccountingSettings.DEFAULT_BUFFER;

    /**
     * A node's accounting: to {@code --acct-db} or {@value #ENV}, else to
     * the embedded database of {@code dataDir}, else none.
     */
    Optional<AccountingSettings> settings(CommandLine cmd, Optional<Path> dataDir, FlushPolicy flush) {
        Optional<AccountingDatabase> target = database(cmd, url());
        if (target.isEmpty() && !off(url())) {
            target = dataDir.map(AccountingDatabase::embedded);
        }
        if (target.isEmpty() && registrations) {
            throw new ParameterException(cmd, "--acct-registrations needs a database: --acct-db URL, or --data-dir");
        }
        return target.map(db -> new AccountingSettings(db, flush, buffer, registrations));
    }

    /** The flags that give a node {@code cluster} starts the same accounting; the URL goes in {@link #nodeEnvironment}. */
    List<String> nodeFlags(CommandLine cmd) {
        Optional<AccountingDatabase> target = database(cmd, Optional.ofNullable(database));
        if (target.isEmpty()) {
            if (registrations) {
                throw new ParameterException(cmd, "--acct-registrations needs --acct-db URL");
            }
            return off(Optional.ofNullable(database)) ? List.of("--acct-db", NONE) : List.of();
        }
        List<String> flags = new ArrayList<>(List.of("--acct-buffer", Integer.toString(buffer)));
        if (registrations) {
            flags.add("--acct-registrations");
        }
        return flags;
    }

    /** The environment that names the database to a node {@code cluster} starts. */
    Map<String, String> nodeEnvironment() {
        return database == null || off(Optional.of(database)) ? Map.of() : Map.of(ENV, database.strip());
    }

    /** The URL given, by flag or by the environment. */
    private Optional<String> url() {
        if (database != null) {
            return Optional.of(database);
        }
        return Optional.ofNullable(System.getenv(ENV)).filter(u -> !u.isBlank());
    }

    private Optional<AccountingDatabase> database(CommandLine cmd, Optional<String> url) {
        if (buffer < 1) {
            throw new ParameterException(cmd, "--acct-buffer must be at least 1");
        }
        if (url.isEmpty() || off(url)) {
            return Optional.empty();
        }
        try {
            return Optional.of(AccountingDatabase.parse(url.get()));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(cmd, "--acct-db: " + e.getMessage());
        }
    }

    private static boolean off(Optional<String> url) {
        return url.isPresent() && url.get().strip().equalsIgnoreCase(NONE);
    }
}
