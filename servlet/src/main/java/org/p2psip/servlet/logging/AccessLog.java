package org.p2psip.servlet.logging;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.p2psip.core.guard.BadInputLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's access log ({@code --access-log FILE}): one line per
 * transaction the node answered with a final response, as web servers and
 * Kamailio's acc module keep one:
 *
 * <pre>
 * 2026-11-25T12:00:00.123Z 127.0.0.1:5601 203.0.113.7:40000 REGISTER sip:alice@p2psip.test 200 3.2ms 5f1c...@host
 * </pre>
 *
 * that is UTC time, the node's SIP address, the client's address
 * ({@code ClientSource}: behind the balancer, where the balancer saw the
 * client), method, address-of-record (the
 * To URI), status, milliseconds from the request's arrival to the answer
 * ({@code -} for one answered without a transaction) and Call-ID. What came
 * from the wire is written with its control characters escaped ({@code \r},
 * {@code \n}, {@code \t}, {@code \xHH}) and cut at {@value #MAX_FIELD}
 * characters.
 *
 * <p>SIP threads only compose the line and offer it to a bounded queue; one
 * writer thread appends to the file, flushing whenever the queue runs dry,
 * so a slow disk never holds up a transaction. A line that finds the queue
 * full is dropped and counted ({@link #dropped}) rather than waited for.
 */
public final class AccessLog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AccessLog.class);
    /** About two seconds of lines at 30,000 transactions a second. */
    private static final int QUEUE = 65_536;
    /** Longer Call-IDs and URIs than any phone sends; a line stays readable whatever arrives. */
    static final int MAX_FIELD = 256;
    /** Tells the writer to finish; compared by identity, so no logged line can be mistaken for it. */
    private static final String STOP = new String("stop");

    private final String node;
    private final BlockingQueue<String> lines = new ArrayBlockingQueue<>(QUEUE);
    private final LongAdder dropped = new LongAdder();
    private final Writer out;
    private final boolean ownsOut;
    private final Thread writer;

    private AccessLog(String node, Writer out, boolean ownsOut) {
        this.node = node;
        this.out = out;
        this.ownsOut = ownsOut;
        this.writer = new Thread(this::drain, "p2psip-access-log");
        writer.setDaemon(true);
        writer.start();
    }

    /**
     * Opens {@code file} for appending (created if absent; {@code -} is
     * standard output) for the node whose SIP address is {@code node}.
     *
     * @throws IOException when the file cannot be opened for writing
     */
    public static AccessLog open(Path file, String node) throws IOException {
        if (file.toString().equals("-")) {
            return new AccessLog(node, new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8),
                    1 << 16), false);
        }
        return new AccessLog(node, Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND, StandardOpenOption.WRITE), true);
    }

    /**
     * One answered transaction.
     *
     * @param source the client's address (behind the balancer, the client's, not the balancer's)
     * @param nanos time from arrival to the answer, or negative when unknown
     */
    public void record(String source, String method, String aor, int status, long nanos, String callId) {
        StringBuilder b = new StringBuilder(160);
        b.append(Instant.now()).append(' ').append(node).append(' ').append(field(source)).append(' ')
                .append(field(method)).append(' ')
                .append(field(aor)).append(' ').append(status).append(' ');
        if (nanos < 0) {
            b.append('-');
        } else {
            long tenths = nanos / 100_000;
            b.append(tenths / 10).append('.').append(tenths % 10).append("ms");
        }
        b.append(' ').append(field(callId)).append('\n');
        if (!lines.offer(b.toString())) {
            dropped.increment();
        }
    }

    /**
     * A field from the wire as the stderr log writes it ({@link BadInputLog#excerpt(String, int)}): control
     * characters escaped, so a Call-ID can neither split a line nor send escape sequences to the terminal of
     * whoever reads the file, and at most {@link #MAX_FIELD} characters of it.
     */
    private static String field(String text) {
        return BadInputLog.excerpt(text, MAX_FIELD);
    }

    /** Lines dropped because the writer was behind. */
    public long dropped() {
        return dropped.sum();
    }

    private void drain() {
        List<String> batch = new ArrayList<>(1024);
        try {
            while (true) {
                String first = lines.take();
                batch.add(first);
                lines.drainTo(batch, 4095);
                boolean stop = false;
                for (String line : batch) {
                    if (line == STOP) {
                        stop = true;
                    } else {
                        out.write(line);
                    }
                }
                batch.clear();
                if (stop) {
                    out.flush();
                    return;
                }
                if (lines.isEmpty()) {
                    out.flush();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            LOG.warn("the access log stopped: {}", e.toString());
        }
    }

    /** Writes what is queued, then closes the file (standard output is flushed, not closed). */
    @Override
    public void close() {
        try {
            // A writer stopped by a failed disk leaves the queue full: then there is nothing to wait for.
            if (lines.offer(STOP, 1, TimeUnit.SECONDS)) {
                writer.join(TimeUnit.SECONDS.toMillis(5));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            out.flush();
            if (ownsOut) {
                out.close();
            }
        } catch (IOException e) {
            LOG.debug("closing the access log: {}", e.toString());
        }
    }
}
