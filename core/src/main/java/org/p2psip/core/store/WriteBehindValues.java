package org.p2psip.core.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's values on disk, written behind: the backend reports each change
 * ({@link HeldValueLog}) and goes on at once; a thread of its own writes
 * what piled up in one batch when its {@link FlushPolicy} says so, then
 * forces it to the disk, so a value acknowledged more than the flush
 * interval before a crash (a SIGKILL, a power cut) is on disk. Changes to
 * one key that meet in a batch are written once, the last of them. The
 * file is an H2 MVStore ({@code NAME.mv.db} in the data directory): an
 * append-only log of checksummed chunks, which after a crash opens at its
 * last complete commit. At {@link #open} the live values are read back
 * ({@link #recovered}) and the expired ones dropped from the file; a file
 * another process has open is refused.
 *
 * <p>A batch the disk refuses (full, gone) stays buffered and is tried
 * again, with a warning once per outage, so the node goes on serving from
 * memory meanwhile.
 */
public final class WriteBehindValues implements HeldValueLog, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WriteBehindValues.class);
    private static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    private static final long CLOSE_WAIT_MILLIS = 30_000;

    private final MVStore store;
    private final MVMap<String, byte[]> values;
    private final FlushSchedule schedule;
    private final List<HeldValue> recovered;
    private final Thread writer;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Condition flushed = lock.newCondition();
    /** Changes not yet written, by key; a null value is a removal. */
    private LinkedHashMap<String, HeldValue> pending = new LinkedHashMap<>();
    private long oldestPendingNanos;
    /** Flushes asked for by {@link #flush} and flushes finished; a flush serves every request made before it began. */
    private long flushesAsked;
    private long flushesDone;
    private boolean closing;
    private boolean failing;
    private long written;

    private WriteBehindValues(MVStore store, FlushPolicy policy, List<HeldValue> recovered, String name) {
        this.store = store;
        this.values = store.openMap("values");
        this.schedule = new FlushSchedule(policy);
        this.recovered = List.copyOf(recovered);
        this.writer = new Thread(this::writeLoop, "p2psip-store-" + name);
        writer.setDaemon(true);
    }

    /**
     * Opens (or creates) {@code NAME.mv.db} in {@code dir}, reads back its
     * live values and starts the writer.
     *
     * @param wallMillis the clock expiry is measured on
     * @throws IOException when the directory cannot be made or the file cannot be opened: in use by another
     *                     process, unreadable, or not an MVStore file
     */
    public static WriteBehindValues open(DataDir dir, String name, LongSupplier wallMillis) throws IOException {
        Objects.requireNonNull(dir, "dir");
        if (!name.matches("[a-z0-9-]+")) {
            throw new IllegalArgumentException("a store name is lower-case letters, digits and dashes, not " + name);
        }
        Files.createDirectories(dir.path());
        Path file = dir.path().resolve(name + ".mv.db");
        MVStore store;
        try {
            store = new MVStore.Builder().fileName(file.toString()).autoCommitDisabled().open();
            // Chunks no live value is in any more are reused at the next write instead of 45 s later: nothing
            // reads old versions, and every batch is forced to disk before the next can reuse its space. Kept
            // for 45 s, a node rewriting 50,000 bindings twenty times grew its file to 685 MB; reused, 37 MB.
            store.setRetentionTime(0);
        } catch (RuntimeException e) {
            throw new IOException("cannot open " + file + ": " + firstLine(e), e);
        }
        try {
            MVMap<String, byte[]> map = store.openMap("values");
            long now = wallMillis.getAsLong();
            List<HeldValue> live = new ArrayList<>();
            List<String> expired = new ArrayList<>();
            for (Map.Entry<String, byte[]> e : map.entrySet()) {
                HeldValue v = decode(e.getKey(), e.getValue());
                if (v.liveAt(now)) {
                    live.add(v);
                } else {
                    expired.add(e.getKey());
                }
            }
            if (!expired.isEmpty()) {
                expired.forEach(map::remove);
                store.commit();
            }
            int dropped = expired.size();
            WriteBehindValues opened = new WriteBehindValues(store, dir.flush(), live, name);
            opened.writer.start();
            LOG.debug("{}: {} live values read back, {} expired ones dropped", file, live.size(), dropped);
            return opened;
        } catch (RuntimeException e) {
            store.closeImmediately();
            throw new IOException("cannot read " + file + ": " + firstLine(e), e);
        }
    }

    /** The live values the file held when it was opened. */
    public List<HeldValue> recovered() {
        return recovered;
    }

    @Override
    public void stored(HeldValue value) {
        change(value.key(), value);
    }

    @Override
    public void removed(String key) {
        change(key, null);
    }

    private void change(String key, HeldValue value) {
        lock.lock();
        try {
            if (pending.isEmpty()) {
                oldestPendingNanos = System.nanoTime();
            }
            // Re-inserted, so a batch writes keys in the order of their last change.
            pending.remove(key);
            pending.put(key, value);
            if (schedule.wakesWriter(pending.size())) {
                changed.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Changes reported and not yet on disk. */
    public int pending() {
        lock.lock();
        try {
            return pending.size();
        } finally {
            lock.unlock();
        }
    }

    /** Changes written to disk since it was opened. */
    public long written() {
        lock.lock();
        try {
            return written;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Writes everything reported so far now, whatever the policy says, and
     * returns once it is on disk, or after {@code timeoutMillis}.
     *
     * @return whether it was written in time
     */
    public boolean flush(long timeoutMillis) throws InterruptedException {
        lock.lock();
        try {
            long mine = ++flushesAsked;
            changed.signal();
            long left = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            while (flushesDone < mine && left > 0 && writer.isAlive()) {
                left = flushed.awaitNanos(left);
            }
            return flushesDone >= mine;
        } finally {
            lock.unlock();
        }
    }

    /** Writes what is pending (waiting up to 30 s) and closes the file. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closing) {
                return;
            }
            closing = true;
            changed.signal();
        } finally {
            lock.unlock();
        }
        try {
            writer.join(CLOSE_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (writer.isAlive()) {
            LOG.warn("{} changes were still unwritten when the store closed", pending());
            writer.interrupt();
        }
        store.close();
    }

    private void writeLoop() {
        while (true) {
            LinkedHashMap<String, HeldValue> batch;
            long serving;
            lock.lock();
            try {
                while (true) {
                    boolean asked = flushesAsked > flushesDone;
                    long wait = closing || asked ? 0 : schedule.nanosToWait(pending.size(), oldestPendingNanos,
                            System.nanoTime());
                    if (wait == 0) {
                        break;
                    }
                    if (wait == FlushSchedule.IDLE) {
                        changed.await();
                    } else {
                        changed.awaitNanos(wait);
                    }
                }
                if (closing && pending.isEmpty()) {
                    flushesDone = flushesAsked;
                    flushed.signalAll();
                    return;
                }
                batch = pending;
                pending = new LinkedHashMap<>();
                serving = flushesAsked;
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            boolean ok = write(batch);
            lock.lock();
            try {
                if (ok) {
                    written += batch.size();
                    flushesDone = Math.max(flushesDone, serving);
                    flushed.signalAll();
                } else {
                    requeue(batch);
                }
            } finally {
                lock.unlock();
            }
            if (!ok && !pause()) {
                return;
            }
        }
    }

    /** Puts a batch the disk refused back in front of what came since, which is newer where keys meet. */
    private void requeue(LinkedHashMap<String, HeldValue> batch) {
        LinkedHashMap<String, HeldValue> merged = new LinkedHashMap<>(batch);
        for (Map.Entry<String, HeldValue> e : pending.entrySet()) {
            merged.remove(e.getKey());
            merged.put(e.getKey(), e.getValue());
        }
        pending = merged;
        oldestPendingNanos = System.nanoTime();
    }

    private boolean pause() {
        try {
            TimeUnit.NANOSECONDS.sleep(RETRY_NANOS);
            return true;
        } catch (InterruptedException e) {
            return false;
        }
    }

    private boolean write(LinkedHashMap<String, HeldValue> batch) {
        try {
            for (Map.Entry<String, HeldValue> e : batch.entrySet()) {
                if (e.getValue() == null) {
                    values.remove(e.getKey());
                } else {
                    values.put(e.getKey(), encode(e.getValue()));
                }
            }
            store.commit();
            store.sync();
            if (failing) {
                failing = false;
                LOG.warn("writing to {} works again", store.getFileStore().getFileName());
            }
            return true;
        } catch (RuntimeException e) {
            if (!failing) {
                failing = true;
                LOG.warn("cannot write to {}, keeping {} changes in memory and trying again: {}",
                        store.getFileStore().getFileName(), batch.size(), firstLine(e));
            }
            return false;
        }
    }

    static byte[] encode(HeldValue v) {
        return ByteBuffer.allocate(16 + v.value().length).putLong(v.version()).putLong(v.expiresAtMillis())
                .put(v.value()).array();
    }

    static HeldValue decode(String key, byte[] stored) {
        ByteBuffer b = ByteBuffer.wrap(stored);
        long version = b.getLong();
        long expires = b.getLong();
        byte[] value = new byte[b.remaining()];
        b.get(value);
        return new HeldValue(key, value, version, expires);
    }

    private static String firstLine(Exception e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
