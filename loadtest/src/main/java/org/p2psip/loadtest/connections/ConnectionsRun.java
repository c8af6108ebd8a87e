package org.p2psip.loadtest.connections;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.p2psip.loadtest.process.TargetSample;

/**
 * Opens the connections at the paced rate and watches them, all on one
 * thread with one {@link Selector}: each connection costs this process one
 * file descriptor and a few hundred bytes, never a thread.
 *
 * <p>Slot {@code i < count} is connection {@code i + 1} in opening order;
 * slot {@code count}, when there is a probe source, is the probe, opened
 * once every other connection has opened or failed.
 */
final class ConnectionsRun {

    private static final byte UNUSED = 0;
    private static final byte CONNECTING = 1;
    private static final byte OPEN = 2;
    private static final byte FAILED = 3;
    private static final byte CLOSED = 4;

    /** The all-open sample is taken this long after the last connection opened, when the target has caught up. */
    private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** How long answers to the last refreshes are waited for. */
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final ConnectionsSpec spec;
    private final Supplier<TargetSample> target;
    private final PrintWriter progress;
    private final int slots;
    private final SocketChannel[] channels;
    private final byte[] state;
    private final long[] startedAt;
    private final long[] openedAt;
    private final long[] closedAt;
    private final Map<String, Integer> failures = new HashMap<>();
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(16_384);
    private final String nonce = Long.toHexString(System.nanoTime());
    private final RefreshLoad refreshes;
    private int connecting;
    private int open;
    private long bytesReceived;
    private long registerStart = Long.MAX_VALUE;
    private long registerEnd = Long.MAX_VALUE;
    /** REGISTERs due so far, and the connection whose turn is next. */
    private long registersDue;
    private int registerSlot;

    /**
     * @param target   samples the target process (its RSS), called before, with all open and after
     * @param progress a line every 10 s while the run lasts; null for none
     */
    ConnectionsRun(ConnectionsSpec spec, Supplier<TargetSample> target, PrintWriter progress) {
        this.spec = spec;
        this.target = target;
        this.progress = progress;
        this.slots = spec.count() + (spec.probeSource() == null ? 0 : 1);
        this.channels = new SocketChannel[slots];
        this.state = new byte[slots];
        this.startedAt = new long[slots];
        this.openedAt = new long[slots];
        this.closedAt = new long[slots];
        this.refreshes = spec.registers() ? new RefreshLoad(spec.domain(), slots,
                (int) Math.min(Integer.MAX_VALUE / 2, spec.registerRate() * spec.registerMillis() / 1000 + 16)) : null;
    }

    ConnectionsReport run() throws IOException {
        TargetSample before = target.get();
        TargetSample allOpen = TargetSample.NONE;
        int openAtSample = 0;
        long gapNanos = (long) (1e9 / spec.rate());
        long connectTimeout = TimeUnit.MILLISECONDS.toNanos(spec.connectTimeoutMillis());
        try (Selector selector = Selector.open()) {
            long start = System.nanoTime();
            int next = 0;
            long openedAll = 0;   // when every connection has opened or failed (the probe included)
            long sampleAt = Long.MAX_VALUE;
            long watchEnd = Long.MAX_VALUE;
            boolean sampled = false;
            long nextTimeoutScan = start;
            long nextProgress = start + PROGRESS_NANOS;
            while (true) {
                long now = System.nanoTime();
                while (next < spec.count() && now - start >= next * gapNanos) {
                    open(selector, next, spec.sources().get(next % spec.sources().size()), now);
                    next++;
                }
                if (next == spec.count() && spec.probeSource() != null && state[slots - 1] == UNUSED
                        && connecting == 0) {
                    open(selector, slots - 1, spec.probeSource(), now);
                }
                if (now >= nextTimeoutScan) {
                    expireConnects(now, connectTimeout);
                    nextTimeoutScan = now + TimeUnit.MILLISECONDS.toNanos(50);
                }
                if (openedAll == 0 && next == spec.count() && connecting == 0
                        && (spec.probeSource() == null || state[slots - 1] != UNUSED)) {
                    openedAll = now;
                    sampleAt = now + SETTLE_NANOS;
                    watchEnd = now + TimeUnit.MILLISECONDS.toNanos(spec.watchMillis());
                    if (refreshes != null) {
                        // Refreshes start once the all-open sample is taken, and the run ends after them.
                        refreshes.startRefreshes();
                        registerStart = sampleAt;
                        registerEnd = registerStart + TimeUnit.MILLISECONDS.toNanos(spec.registerMillis());
                        watchEnd = registerEnd + DRAIN_NANOS;
                    }
                }
                if (now >= registerStart && now < registerEnd) {
                    sendDueRegisters(now);
                }
                if (openedAll != 0 && !sampled && (now >= sampleAt || open == 0 || now >= watchEnd)) {
                    allOpen = target.get();
                    openAtSample = open;
                    sampled = true;
                }
                if (openedAll != 0 && sampled && (now >= watchEnd || open == 0)) {
                    break;
                }
                if (progress != null && now >= nextProgress) {
                    progress.printf("connections: %,d open, %,d connecting, %,d closed by the target, %,d failed%n",
                            open, connecting, count(CLOSED), count(FAILED));
                    progress.flush();
                    nextProgress += PROGRESS_NANOS;
                }
                long wake = Math.min(nextTimeoutScan, Math.min(nextProgress, Math.min(sampleAt, watchEnd)));
                if (registerStart != Long.MAX_VALUE && now < registerEnd) {
                    wake = Math.min(wake, Math.max(registerStart, nextRegisterAt()));
                }
                if (next < spec.count()) {
                    wake = Math.min(wake, start + next * gapNanos);
                }
                long waitMillis = TimeUnit.NANOSECONDS.toMillis(wake - System.nanoTime());
                if (waitMillis <= 0) {
                    selector.selectNow();
                } else {
                    selector.select(waitMillis);
                }
                handle(selector);
            }
            long end = System.nanoTime();
            int stillOpen = 0;
            for (int i = 0; i < spec.count(); i++) {
                if (state[i] == OPEN) {
                    stillOpen++;
                }
            }
            ConnectionsReport.Probe probe = probeOutcome();
            closeAll();
            selector.selectNow(); // flushes the cancelled keys so the descriptors are released
            return report(start, openedAll, end, stillOpen, probe, before, allOpen, openAtSample);
        } finally {
            closeAll();
        }
    }

    /** The target's RSS after the connections are gone, once it has had a moment to notice. */
    static ConnectionsReport withAfter(ConnectionsReport r, TargetSample after) {
        return new ConnectionsReport(r.attempted(), r.opened(), r.failed(), r.failures(), r.refused(),
                r.firstRefused(), r.firstRefusedSource(), r.refusedMaxMillis(), r.closeMillis(), r.stillOpen(),
                r.bytesReceived(), r.openSeconds(), r.watchSeconds(), r.refusedWithinMillis(), r.probe(), r.before(),
                r.allOpen(), r.openAtSample(), after, r.initial(), r.refreshes());
    }

    private void open(Selector selector, int slot, InetAddress source, long now) {
        startedAt[slot] = now;
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open();
            channels[slot] = ch;
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.bind(new InetSocketAddress(source, 0));
            state[slot] = CONNECTING;
            connecting++;
            if (ch.connect(spec.target())) {
                connecting--;
                opened(selector, slot, ch, System.nanoTime());
            } else {
                ch.register(selector, SelectionKey.OP_CONNECT, slot);
            }
        } catch (IOException | RuntimeException e) {
            if (state[slot] == CONNECTING) {
                connecting--;
            }
            fail(slot, e);
        }
    }

    private void opened(Selector selector, int slot, SocketChannel ch, long now) {
        state[slot] = OPEN;
        openedAt[slot] = now;
        open++;
        try {
            if (spec.slowloris()) {
                // A few hundred bytes into an empty socket buffer: written whole.
                ch.write(ByteBuffer.wrap(slowlorisRequest(slot, ch)));
            } else if (refreshes != null && slot < spec.count()) {
                sendRegister(slot, ch, now);
            }
            SelectionKey key = ch.keyFor(selector);
            if (key == null) {
                ch.register(selector, SelectionKey.OP_READ, slot);
            } else {
                key.interestOps(SelectionKey.OP_READ);
            }
        } catch (IOException e) {
            closedByTarget(slot, now); // closed or reset before the request went out
        }
    }

    private void handle(Selector selector) {
        Iterator<SelectionKey> it = selector.selectedKeys().iterator();
        while (it.hasNext()) {
            SelectionKey key = it.next();
            it.remove();
            int slot = (Integer) key.attachment();
            SocketChannel ch = (SocketChannel) key.channel();
            if (!key.isValid()) {
                continue;
            }
            long now = System.nanoTime();
            if (state[slot] == CONNECTING && key.isConnectable()) {
                try {
                    if (ch.finishConnect()) {
                        connecting--;
                        opened(selector, slot, ch, now);
                    }
                } catch (IOException e) {
                    connecting--;
                    fail(slot, e);
                }
            } else if (state[slot] == OPEN && key.isReadable()) {
                try {
                    while (true) {
                        readBuffer.clear();
                        int n = ch.read(readBuffer);
                        if (n < 0) {
                            closedByTarget(slot, now);
                            break;
                        }
                        if (n == 0) {
                            break;
                        }
                        bytesReceived += n;
                        if (refreshes != null) {
                            readBuffer.flip();
                            refreshes.received(slot, readBuffer, now);
                        }
                    }
                } catch (IOException e) {
                    closedByTarget(slot, now); // a reset
                }
            }
        }
    }

    private long nextRegisterAt() {
        return registerStart + (long) (registersDue * 1e9 / spec.registerRate());
    }

    /** Sends every REGISTER due by {@code now}, each on the next open connection in turn. */
    private void sendDueRegisters(long now) {
        while (nextRegisterAt() <= now) {
            registersDue++;
            for (int tries = 0; tries < spec.count(); tries++) {
                int slot = registerSlot;
                registerSlot = (registerSlot + 1) % spec.count();
                if (state[slot] != OPEN) {
                    continue;
                }
                try {
                    sendRegister(slot, channels[slot], now);
                } catch (IOException e) {
                    closedByTarget(slot, now);
                }
                break;
            }
        }
    }

    /**
     * Sends connection {@code slot}'s next REGISTER: half a kilobyte into a
     * socket buffer that holds one earlier one at most, so written whole.
     */
    private void sendRegister(int slot, SocketChannel ch, long now) throws IOException {
        ch.write(ByteBuffer.wrap(refreshes.next(slot, (InetSocketAddress) ch.getLocalAddress(), now)));
    }

    private void expireConnects(long now, long timeoutNanos) {
        if (connecting == 0) {
            return;
        }
        for (int i = 0; i < slots; i++) {
            if (state[i] == CONNECTING && now - startedAt[i] >= timeoutNanos) {
                connecting--;
                fail(i, new IOException("no answer within " + spec.connectTimeoutMillis() + " ms"));
            }
        }
    }

    private void fail(int slot, Exception e) {
        state[slot] = FAILED;
        String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        failures.merge(reason, 1, Integer::sum);
        close(slot);
    }

    private void closedByTarget(int slot, long now) {
        state[slot] = CLOSED;
        closedAt[slot] = now;
        open--;
        close(slot);
    }

    private void close(int slot) {
        SocketChannel ch = channels[slot];
        channels[slot] = null;
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                // already gone
            }
        }
    }

    private void closeAll() {
        for (int i = 0; i < slots; i++) {
            close(i);
        }
    }

    private int count(byte s) {
        int n = 0;
        for (byte b : state) {
            if (b == s) {
                n++;
            }
        }
        return n;
    }

    private boolean refused(int slot) {
        return state[slot] == CLOSED
                && closedAt[slot] - openedAt[slot] < TimeUnit.MILLISECONDS.toNanos(spec.refusedWithinMillis());
    }

    private ConnectionsReport.Probe probeOutcome() {
        if (spec.probeSource() == null) {
            return ConnectionsReport.Probe.NONE;
        }
        int p = slots - 1;
        if (state[p] == FAILED || state[p] == UNUSED || state[p] == CONNECTING) {
            return ConnectionsReport.Probe.FAILED;
        }
        return refused(p) ? ConnectionsReport.Probe.REFUSED : ConnectionsReport.Probe.ACCEPTED;
    }

    private ConnectionsReport report(long start, long openedAll, long end, int stillOpen, ConnectionsReport.Probe probe,
                                     TargetSample before, TargetSample allOpen, int openAtSample) {
        int opened = 0;
        int failed = 0;
        int refused = 0;
        int firstRefused = 0;
        long refusedMaxMillis = -1;
        List<Long> closes = new ArrayList<>();
        for (int i = 0; i < spec.count(); i++) {
            switch (state[i]) {
                case OPEN -> opened++;
                case FAILED -> failed++;
                case CLOSED -> {
                    opened++;
                    if (refused(i)) {
                        refused++;
                        refusedMaxMillis = Math.max(refusedMaxMillis,
                                TimeUnit.NANOSECONDS.toMillis(closedAt[i] - openedAt[i]));
                        if (firstRefused == 0) {
                            firstRefused = i + 1;
                        }
                    } else {
                        closes.add(TimeUnit.NANOSECONDS.toMillis(closedAt[i] - openedAt[i]));
                    }
                }
                default -> failed++;
            }
        }
        String firstRefusedSource = firstRefused == 0 ? null
                : spec.sources().get((firstRefused - 1) % spec.sources().size()).getHostAddress();
        return new ConnectionsReport(spec.count(), opened, failed, failures, refused, firstRefused,
                firstRefusedSource, refusedMaxMillis, closes.stream().mapToLong(Long::longValue).toArray(), stillOpen,
                bytesReceived, (openedAll - start) / 1e9, (end - openedAll) / 1e9, spec.refusedWithinMillis(), probe,
                before, allOpen, openAtSample, TargetSample.NONE,
                refreshes == null ? RefreshReport.NONE : refreshes.initialReport((openedAll - start) / 1e9),
                refreshes == null ? RefreshReport.NONE
                        : refreshes.refreshReport(Math.max(0, Math.min(end, registerEnd) - registerStart) / 1e9));
    }

    /** A request line and headers announcing a 1,000-byte body, of which only 10 bytes follow. */
    private byte[] slowlorisRequest(int slot, SocketChannel ch) throws IOException {
        InetSocketAddress self = (InetSocketAddress) ch.getLocalAddress();
        String me = self.getAddress().getHostAddress() + ":" + self.getPort();
        String host = spec.target().getAddress().getHostAddress();
        String uri = "sip:" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + spec.target().getPort();
        String id = "slowloris-" + slot + "-" + nonce;
        String text = "OPTIONS " + uri + " SIP/2.0\r\n"
                + "Via: SIP/2.0/TCP " + me + ";branch=z9hG4bK" + id + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:slowloris@" + me + ">;tag=" + id + "\r\n"
                + "To: <" + uri + ">\r\n"
                + "Call-ID: " + id + "\r\n"
                + "CSeq: 1 OPTIONS\r\n"
                + "Content-Type: text/plain\r\n"
                + "Content-Length: 1000\r\n"
                + "\r\n"
                + "slowloris.";
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
