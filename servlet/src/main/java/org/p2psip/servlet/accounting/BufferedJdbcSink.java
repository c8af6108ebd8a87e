package org.p2psip.servlet.accounting;

import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.p2psip.core.store.FlushPolicy;
import org.p2psip.core.store.FlushSchedule;
import org.p2psip.servlet.accounting.AccountingDatabase.Dialect;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accounting records on their way to a database over JDBC, buffered in
 * memory and written in batches by a thread of its own, so that SIP
 * threads only ever add to a queue.
 *
 * <ul>
 *   <li>{@link #offer} never blocks and never throws. The buffer holds at
 *       most {@code capacity} records, counting those being written; a
 *       record that finds it full is dropped and counted.</li>
 *   <li>The writer flushes by the {@link FlushSchedule}: once the flush
 *       count is reached or the oldest record has waited the flush
 *       interval, it writes every waiting record in one transaction
 *       ({@link WriteBatch}).</li>
 *   <li>When a write fails, the batch stays in memory, the connection is
 *       closed and the writer tries again on a new one after a
 *       {@link RetryBackoff}; records keep coming into the buffer
 *       meanwhile. A database that is down for a while therefore loses
 *       nothing the buffer can hold. A failing database is logged once
 *       when it starts failing and once when it takes records again.</li>
 *   <li>Two nodes merging the same call at the same moment can make one of
 *       them fail on a unique key (a {@code MERGE} that met another
 *       transaction's insert of the call; PostgreSQL's upsert waits for it
 *       instead) or a serialization failure; that batch is tried again at once. A record the database refuses for its content, which
 *       {@link ColumnText} should make impossible, would otherwise hold up
 *       every record behind it: its batch is written record by record and
 *       the refused ones are dropped.</li>
 *   <li>{@link #close} writes what is waiting, trying for at most its
 *       bound, and counts what it could not write as dropped.</li>
 * </ul>
 *
 * <p>Merging a call's partials is idempotent, so a batch written twice (a
 * commit whose acknowledgement was lost) leaves its calls as once; a
 * registration change written twice is two rows.
 */
public final class BufferedJdbcSink implements AccountingSink, AutoCloseable {

    /** Opens connections to the database; tests give one that fails on demand. */
    @FunctionalInterface
    interface ConnectionSource {
        Connection open() throws SQLException;
    }

    /** How long {@link #close()} may spend writing what is waiting. */
    public static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(5);
    /** How long the writer waits for the first record before it looks whether it was stopped. */
    private static final long IDLE_POLL_MILLIS = 200;
    private static final long IDLE_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(IDLE_POLL_MILLIS);
    /** Attempts at a batch that lost a race with another node before it counts as a failure. */
    private static final int CONFLICT_ATTEMPTS = 5;

    private static final Logger LOG = LoggerFactory.getLogger(BufferedJdbcSink.class);

    private final ConnectionSource source;
    private final String name;
    private final Dialect dialect;
    private final FlushSchedule schedule;
    private final RetryBackoff backoff;
    private final int capacity;
    private final LinkedBlockingQueue<AccountingRecord> queue = new LinkedBlockingQueue<>();
    private final AtomicInteger held = new AtomicInteger();
    private final LongAdder written = new LongAdder();
    private final LongAdder dropped = new LongAdder();
    /** The part of {@link #dropped} that found the buffer full. */
    private final LongAdder overflowed = new LongAdder();
    private final LongAdder flushFailures = new LongAdder();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final CountDownLatch stopping = new CountDownLatch(1);
    private final Thread writer;
    private volatile long stopDeadlineNanos;

    // The writer thread's own state.
    private Connection connection;
    private int failuresInARow;
    private long outageSinceNanos = -1;
    private long overflowSeen;
    private boolean fullLogged;
    private boolean refusalLogged;

    BufferedJdbcSink(ConnectionSource source, String name, Dialect dialect, FlushSchedule schedule,
                     RetryBackoff backoff, int capacity) {
        this.source = Objects.requireNonNull(source, "source");
        this.name = Objects.requireNonNull(name, "name");
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.schedule = Objects.requireNonNull(schedule, "schedule");
        this.backoff = Objects.requireNonNull(backoff, "backoff");
        if (capacity < 1) {
            throw new IllegalArgumentException("the accounting buffer must hold at least one record");
        }
        this.capacity = capacity;
        this.writer = new Thread(this::run, "p2psip-accounting");
        writer.setDaemon(true);
    }

    /**
     * Starts writing to {@code database} by {@code policy}, holding at most
     * {@code capacity} records in memory. Returns at once: the first
     * connection is the writer's, and a database that is not there yet is
     * an outage like any other.
     */
    public static BufferedJdbcSink start(AccountingDatabase database, FlushPolicy policy, int capacity) {
        BufferedJdbcSink sink = new BufferedJdbcSink(database::connect, database.redacted(), database.dialect(),
                new FlushSchedule(policy), RetryBackoff.STANDARD, capacity);
        sink.start();
        return sink;
    }

    void start() {
        writer.start();
    }

    @Override
    public void offer(AccountingRecord record) {
        if (record == null) {
            return;
        }
        if (closed.get()) {
            dropped.increment();
            return;
        }
        int now = held.incrementAndGet();
        if (now > capacity) {
            held.decrementAndGet();
            dropped.increment();
            overflowed.increment();
            return;
        }
        queue.offer(record);
        if (schedule.wakesWriter(now)) {
            LockSupport.unpark(writer);
        }
    }

    /** The counters now. */
    public AccountingCounts counts() {
        return new AccountingCounts(written.sum(), dropped.sum(), Math.max(0, held.get()), flushFailures.sum());
    }

    /** Writes what is waiting, for at most {@link #SHUTDOWN_WAIT}, and stops the writer. */
    @Override
    public void close() {
        close(SHUTDOWN_WAIT);
    }

    /** Writes what is waiting, for at most {@code wait}, and stops the writer; idempotent. */
    void close(Duration wait) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        stopDeadlineNanos = System.nanoTime() + wait.toNanos();
        stopping.countDown();
        LockSupport.unpark(writer);
        try {
            writer.join(wait.toMillis() + IDLE_POLL_MILLIS + 1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean stopRequested() {
        return stopping.getCount() == 0;
    }

    private void run() {
        List<AccountingRecord> pending = new ArrayList<>();
        long oldestNanos = 0;
        try {
            connectEarly();
            while (true) {
                boolean stop = stopRequested();
                if (pending.isEmpty()) {
                    AccountingRecord first = stop ? queue.poll() : queue.poll(IDLE_POLL_MILLIS, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        if (stop) {
                            return;
                        }
                        continue;
                    }
                    pending.add(first);
                    oldestNanos = System.nanoTime();
                }
                queue.drainTo(pending);
                long wait = stop ? 0 : schedule.nanosToWait(pending.size(), oldestNanos, System.nanoTime());
                if (wait > 0) {
                    // Parked, not polling the queue, which would wake the writer
                    // for each record: offer unparks it as the schedule says,
                    // close when stopping. Bounded, so a stop is seen within
                    // the idle poll even with a long flush interval.
                    LockSupport.parkNanos(this, Math.min(wait, IDLE_POLL_NANOS));
                    if (Thread.interrupted()) {
                        throw new InterruptedException();
                    }
                    continue;
                }
                List<AccountingRecord> batch = pending.subList(0, Math.min(pending.size(), schedule.batchLimit()));
                int taken = batch.size();
                int refused = flush(WriteBatch.of(batch));
                if (refused >= 0) {
                    batch.clear();
                    held.addAndGet(-taken);
                    written.add(taken - refused);
                    dropped.add(refused);
                } else if (!waitBeforeRetry()) {
                    return;
                }
                noteDrops();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            LOG.error("accounting: the writer to {} stopped: {}", name, e.toString(), e);
        } finally {
            closeConnection();
            int lost = held.getAndSet(0);
            if (lost > 0) {
                dropped.add(lost);
                LOG.warn("accounting: {} records were not written to {} before the node stopped", lost, name);
            }
        }
    }

    /**
     * Opens the connection and creates the tables before the first record
     * comes: the driver's loading and the schema's creation then cost a
     * node's start rather than its first calls, and a database that cannot
     * be reached is reported at once. A failure here is the start of an
     * outage, not a failed flush.
     */
    private void connectEarly() {
        try {
            connection();
        } catch (SQLException e) {
            closeConnection();
            noteOutage(e);
        }
    }

    /**
     * Writes one batch in one transaction.
     *
     * @return the statements the database refused for their content and that were dropped
     *         (0 normally), or -1 when the batch must be tried again
     */
    private int flush(WriteBatch batch) {
        for (int attempt = 1; ; attempt++) {
            try {
                write(connection(), batch);
                recovered();
                return 0;
            } catch (SQLException e) {
                rollbackQuietly();
                if (isConflict(e) && attempt < CONFLICT_ATTEMPTS) {
                    LOG.debug("accounting: batch lost a race with another writer, again: {}", e.getMessage());
                    continue;
                }
                if (isRefusal(e)) {
                    return writeEachAlone(batch);
                }
                failed(e);
                return -1;
            }
        }
    }

    private void write(Connection c, WriteBatch batch) throws SQLException {
        if (!batch.calls().isEmpty()) {
            try (PreparedStatement s = c.prepareStatement(AccountingSql.mergeCall(dialect))) {
                for (CallRecord r : batch.calls()) {
                    AccountingSql.bind(s, r);
                    s.addBatch();
                }
                s.executeBatch();
            }
        }
        if (!batch.registrations().isEmpty()) {
            try (PreparedStatement s = c.prepareStatement(AccountingSql.INSERT_REGISTRATION)) {
                for (RegistrationRecord r : batch.registrations()) {
                    AccountingSql.bind(s, r);
                    s.addBatch();
                }
                s.executeBatch();
            }
        }
        c.commit();
    }

    /** The batch one statement per transaction, dropping what the database refuses; -1 if it fails otherwise. */
    private int writeEachAlone(WriteBatch batch) {
        int refused = 0;
        List<WriteBatch> singles = new ArrayList<>(batch.size());
        batch.calls().forEach(c -> singles.add(new WriteBatch(List.of(c), List.of())));
        batch.registrations().forEach(r -> singles.add(new WriteBatch(List.of(), List.of(r))));
        for (WriteBatch single : singles) {
            try {
                write(connection(), single);
            } catch (SQLException e) {
                rollbackQuietly();
                if (!isRefusal(e)) {
                    failed(e);
                    return -1;
                }
                refused++;
                if (!refusalLogged) {
                    refusalLogged = true;
                    LOG.warn("accounting: {} refused a record, which is dropped (further ones are only counted in "
                            + "p2psip_acct_records_dropped_total): {}", name, oneLine(e));
                }
            }
        }
        recovered();
        return refused;
    }

    /** The open connection, or a new one with the tables in place. */
    private Connection connection() throws SQLException {
        if (connection == null) {
            Connection c = source.open();
            try {
                c.setAutoCommit(true);
                createMissingTables(c);
                c.setAutoCommit(false);
            } catch (SQLException e) {
                try {
                    c.close();
                } catch (SQLException closing) {
                    e.addSuppressed(closing);
                }
                throw e;
            }
            connection = c;
        }
        return connection;
    }

    /**
     * Creates what is missing of the schema. Nodes starting together race
     * to create it, and PostgreSQL's {@code IF NOT EXISTS} is no guard
     * against a concurrent creation (it fails on the catalogue's unique
     * key); the loser's second try finds the table there.
     */
    private void createMissingTables(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String ddl : AccountingSql.schema(dialect)) {
                try {
                    s.execute(ddl);
                } catch (SQLException e) {
                    if (!isConcurrentCreation(e)) {
                        throw e;
                    }
                    s.execute(ddl);
                }
            }
        }
    }

    private void failed(SQLException e) {
        flushFailures.increment();
        failuresInARow++;
        closeConnection();
        noteOutage(e);
    }

    /** Logs the first failure of an outage; the others only at DEBUG. */
    private void noteOutage(SQLException e) {
        if (outageSinceNanos < 0) {
            outageSinceNanos = System.nanoTime();
            LOG.warn("accounting: cannot write to {}: {}; keeping records in memory (at most {}) and trying again",
                    name, oneLine(e), capacity);
        } else {
            LOG.debug("accounting: {} still failing: {}", name, oneLine(e));
        }
    }

    private void recovered() {
        failuresInARow = 0;
        if (outageSinceNanos >= 0) {
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - outageSinceNanos);
            outageSinceNanos = -1;
            LOG.warn("accounting: writing to {} again after {}.{} s of failures; {} records in memory",
                    name, millis / 1000, (millis % 1000) / 100, held.get());
        }
    }

    /** Logs the first record a full buffer dropped, and again only after the buffer had room. */
    private void noteDrops() {
        long now = overflowed.sum();
        if (now > overflowSeen && !fullLogged) {
            fullLogged = true;
            LOG.warn("accounting: the buffer of {} records is full; new records are dropped until {} takes them",
                    capacity, name);
        }
        overflowSeen = now;
        if (fullLogged && held.get() < capacity / 2) {
            fullLogged = false;
        }
    }

    /**
     * Waits out the backoff before the next attempt; a stop cuts the wait
     * short. False once the node is stopping and its shutdown bound would
     * pass before the next attempt.
     */
    private boolean waitBeforeRetry() throws InterruptedException {
        Duration delay = backoff.after(failuresInARow);
        if (stopRequested()) {
            if (System.nanoTime() + delay.toNanos() - stopDeadlineNanos > 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.sleep(delay.toNanos());
            return true;
        }
        stopping.await(delay.toNanos(), TimeUnit.NANOSECONDS);
        return true;
    }

    private void rollbackQuietly() {
        if (connection == null) {
            return;
        }
        try {
            connection.rollback();
        } catch (SQLException e) {
            // A connection that cannot roll back is broken; the failure that follows closes it.
            LOG.debug("accounting: rollback failed: {}", e.toString());
        }
    }

    private void closeConnection() {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException e) {
            LOG.debug("accounting: closing the connection: {}", e.toString());
        }
        connection = null;
    }

    /** Lost a race with another writer: unique key (a concurrent insert), serialization failure or deadlock. */
    static boolean isConflict(SQLException e) {
        String state = state(e);
        return "23505".equals(state) || "40001".equals(state) || "40P01".equals(state);
    }

    /** Refused for the data: a data exception, or an integrity violation other than a unique key. */
    static boolean isRefusal(SQLException e) {
        String state = state(e);
        return state != null && (state.startsWith("22") || (state.startsWith("23") && !"23505".equals(state)));
    }

    /** Another session created the same table or index a moment before. */
    private static boolean isConcurrentCreation(SQLException e) {
        String state = state(e);
        return "23505".equals(state) || "42P07".equals(state) || "42710".equals(state);
    }

    /**
     * The SQLState of a failure; a batch's failure may carry it only on the
     * exception of the statement that failed, chained behind.
     */
    static String state(SQLException e) {
        for (SQLException x = e; x != null; x = x.getNextException()) {
            if (x.getSQLState() != null) {
                return x.getSQLState();
            }
        }
        return e.getCause() instanceof SQLException cause && cause != e ? state(cause) : null;
    }

    /**
     * The reason, on one line of bounded length: for a batch, that of the
     * statement that failed (PostgreSQL's batch exception quotes the whole
     * statement with its values), and without the statement H2 appends.
     */
    private static String oneLine(SQLException e) {
        Throwable t = e instanceof BatchUpdateException && e.getNextException() != null ? e.getNextException() : e;
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        int statement = m.indexOf("; SQL statement:");
        if (statement > 0) {
            m = m.substring(0, statement);
        }
        m = m.replace('\n', ' ').replace('\r', ' ');
        return m.length() > 300 ? m.substring(0, 300) + "..." : m;
    }
}
