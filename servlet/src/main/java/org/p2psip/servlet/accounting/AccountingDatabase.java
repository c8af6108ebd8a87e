package org.p2psip.servlet.accounting;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The database a node accounts to ({@code --acct-db URL}) and
 * {@code acct export} reads: PostgreSQL, or H2, which is also the embedded
 * default in a node's {@code --data-dir}. Only these two: the tables and
 * the {@code MERGE} that joins a call's partial records are written for
 * them ({@link AccountingSql}).
 *
 * <p>The URL may carry a password ({@code ?user=U&password=P}); this
 * object's {@link #toString} and everything logged show it masked.
 *
 * @param url     the JDBC URL
 * @param dialect which of the two databases it names
 */
public record AccountingDatabase(String url, Dialect dialect) {

    /** The SQL differences that matter here. */
    public enum Dialect {
        POSTGRESQL("jdbc:postgresql:"),
        H2("jdbc:h2:");

        private final String prefix;

        Dialect(String prefix) {
            this.prefix = prefix;
        }

        /**
         * How a computed column is declared: PostgreSQL stores it and says
         * so; H2's computed columns are always stored and take no keyword.
         */
        String generatedColumn(String type, String expression) {
            return type + " GENERATED ALWAYS AS (" + expression + ")" + (this == POSTGRESQL ? " STORED" : "");
        }
    }

    /** The embedded database's name in a node's data directory. */
    public static final String EMBEDDED_NAME = "accounting";
    private static final Pattern PASSWORD = Pattern.compile("(?i)(password=)[^&;]*");
    private static final Pattern USER_INFO = Pattern.compile("(//[^/@:]*:)[^/@]*@");

    public AccountingDatabase {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(dialect, "dialect");
        if (!url.toLowerCase(Locale.ROOT).startsWith(dialect.prefix)) {
            throw new IllegalArgumentException("a " + dialect + " URL starts with " + dialect.prefix);
        }
    }

    /**
     * The database {@code url} names.
     *
     * @throws IllegalArgumentException with a one-line reason when it is no PostgreSQL or H2 JDBC URL
     */
    public static AccountingDatabase parse(String url) {
        String u = url.strip();
        String lower = u.toLowerCase(Locale.ROOT);
        for (Dialect d : Dialect.values()) {
            if (lower.startsWith(d.prefix) && lower.length() > d.prefix.length()) {
                return new AccountingDatabase(u, d);
            }
        }
        throw new IllegalArgumentException("'" + masked(u) + "' is not a database URL this node writes to: give "
                + "jdbc:postgresql://HOST:PORT/DB?user=U&password=P or jdbc:h2:...");
    }

    /**
     * The H2 database {@value #EMBEDDED_NAME} in {@code dataDir}, opened so
     * that while a node holds it {@code acct export} in another process can
     * read it: H2's automatic mixed mode has the first process serve the file
     * to the others on a TCP port it writes into the lock file, bound to the
     * loopback address (see {@link LoopbackH2Server}).
     */
    public static AccountingDatabase embedded(Path dataDir) {
        LoopbackH2Server.bindToLoopback();
        return new AccountingDatabase("jdbc:h2:file:" + dataDir.toAbsolutePath().resolve(EMBEDDED_NAME)
                + ";AUTO_SERVER=TRUE", Dialect.H2);
    }

    /** The same database, opened only if it exists already: reading must not leave an empty one behind. */
    public AccountingDatabase existingOnly() {
        return dialect == Dialect.H2 ? new AccountingDatabase(url + ";IFEXISTS=TRUE", dialect) : this;
    }

    /**
     * A new connection. PostgreSQL's get a connect timeout and a socket
     * timeout unless the URL sets its own, so a database host that vanished
     * from the network fails a write in bounded time instead of holding the
     * writer forever.
     */
    public Connection connect() throws SQLException {
        Properties p = new Properties();
        if (dialect == Dialect.POSTGRESQL) {
            p.setProperty("connectTimeout", "5");
            p.setProperty("socketTimeout", "30");
            p.setProperty("tcpKeepAlive", "true");
            p.setProperty("ApplicationName", "p2psip");
        }
        return DriverManager.getConnection(url, p);
    }

    /** The URL with any password masked, for logs and errors. */
    public String redacted() {
        return masked(url);
    }

    @Override
    public String toString() {
        return redacted();
    }

    private static String masked(String url) {
        return USER_INFO.matcher(PASSWORD.matcher(url).replaceAll("$1***")).replaceAll("$1***@");
    }
}
