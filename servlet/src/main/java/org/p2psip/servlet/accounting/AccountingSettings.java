package org.p2psip.servlet.accounting;

import java.util.Objects;

import org.p2psip.core.store.FlushPolicy;

/**
 * A node's accounting, as its command line sets it up: where the records
 * go ({@code --acct-db}, else the embedded database of {@code --data-dir}),
 * when buffered ones are written ({@code --flush-count}, {@code --flush-ms},
 * the buffering the data directory uses), how many may wait in memory
 * ({@code --acct-buffer}) and whether registration changes are recorded as
 * well as calls ({@code --acct-registrations}).
 *
 * @param database      where the records go
 * @param flush         when buffered records are written
 * @param buffer        the most records held in memory; more are dropped and counted
 * @param registrations whether registration changes are recorded too
 */
public record AccountingSettings(AccountingDatabase database, FlushPolicy flush, int buffer, boolean registrations) {

    /**
     * Records held in memory by default: at 200 calls a second, two
     * partial records each, more than eight minutes of a database outage.
     */
    public static final int DEFAULT_BUFFER = 200_000;

    public AccountingSettings {
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(flush, "flush");
        if (buffer < 1) {
            throw new IllegalArgumentException("the accounting buffer must hold at least 1 record, not " + buffer);
        }
    }
}
