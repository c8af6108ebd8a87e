package org.p2psip.servlet.stack;

import java.util.AbstractQueue;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;

/**
 * The UDP processor's message queue, which hands the messages of one call
 * to one worker at a time, in the order they arrived. RFC 3261 §17.2.1 has
 * a server transaction pass its responses on in order, and a 180 handled
 * by one worker must not be overtaken by its 200 on another. That happened
 * when the RI's workers took from a plain shared queue: a UAS answering at
 * once lost the caller its ringing.
 *
 * <p>The queue stays shared, so an idle worker takes whatever call is
 * next, and a worker held up in one message delays only that call. Fixed
 * lanes per worker, as the RI's TCP executor has, made every call behind a
 * stalled worker wait, and the overload gate shed them.
 *
 * <p>A worker holds its message's call (a hash of its Call-ID) from its
 * take until its next one, since the RI's worker loop takes again only
 * when it has finished. A message taken for a held call is put behind that
 * call instead, and its holder handles it next.
 */
final class CallOrderedQueue extends AbstractQueue<DatagramQueuedMessageDispatch>
        implements BlockingQueue<DatagramQueuedMessageDispatch> {

    private record Entry(DatagramQueuedMessageDispatch message, int call) {
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition available = lock.newCondition();
    private final ArrayDeque<Entry> arrivals = new ArrayDeque<>();
    /** Calls a worker holds, each with the messages put behind it. */
    private final Map<Integer, ArrayDeque<Entry>> held = new HashMap<>();
    private final ThreadLocal<Integer> holding = new ThreadLocal<>();
    /** Written under the lock, read without it: the receiving thread asks for it on every datagram. */
    private volatile int waiting;

    /** A hash of the datagram's Call-ID value; 0 for one without (the parser refuses it anyway). */
    static int callOf(byte[] data, int length) {
        int[] value = callIdValue(data, length);
        if (value == null) {
            return 0;
        }
        int hash = 1;
        for (int i = value[0]; i < value[1]; i++) {
            hash = 31 * hash + data[i];
        }
        return hash;
    }

    /**
     * Where the first Call-ID header's value lies in a raw message, as
     * {start, end}, trimmed of surrounding white space; null when the
     * header section has none. Header names are case-insensitive and
     * {@code i} is Call-ID's compact form (RFC 3261 §7.3.1, §20.8).
     */
    static int[] callIdValue(byte[] data, int length) {
        int line = nextLine(data, 0, length);
        while (line < length && data[line] != '\r' && data[line] != '\n') {
            int end = nextLine(data, line, length);
            if (data[line] != ' ' && data[line] != '\t') {
                int colon = line;
                while (colon < end && data[colon] != ':') {
                    colon++;
                }
                int nameEnd = colon;
                while (nameEnd > line && (data[nameEnd - 1] == ' ' || data[nameEnd - 1] == '\t')) {
                    nameEnd--;
                }
                if (colon < end && (named(data, line, nameEnd, "call-id") || named(data, line, nameEnd, "i"))) {
                    int start = colon + 1;
                    int stop = end;
                    while (start < stop && (data[start] == ' ' || data[start] == '\t')) {
                        start++;
                    }
                    while (stop > start && (data[stop - 1] <= ' ')) {
                        stop--;
                    }
                    return new int[] {start, stop};
                }
            }
            line = end;
        }
        return null;
    }

    /** The index just past the line feed ending the line at {@code from}, or {@code length}. */
    private static int nextLine(byte[] data, int from, int length) {
        for (int i = from; i < length; i++) {
            if (data[i] == '\n') {
                return i + 1;
            }
        }
        return length;
    }

    private static boolean named(byte[] data, int from, int to, String lowerName) {
        if (to - from != lowerName.length()) {
            return false;
        }
        for (int i = 0; i < lowerName.length(); i++) {
            if (Character.toLowerCase((char) (data[from + i] & 0xff)) != lowerName.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * When the oldest message not yet taken by a worker was received
     * (wall-clock milliseconds, as the RI stamps them), or -1 when none is
     * waiting. Messages put behind a held call are not counted: their
     * worker is busy with that call, not stalled by load.
     */
    long oldestReceptionMillis() {
        lock.lock();
        try {
            Entry head = arrivals.peek();
            return head == null ? -1 : head.message().getReceptionTime();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean offer(DatagramQueuedMessageDispatch message) {
        Entry entry = new Entry(message, callOf(message.packet.getData(), message.packet.getLength()));
        lock.lock();
        try {
            arrivals.add(entry);
            waiting++;
            available.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void put(DatagramQueuedMessageDispatch message) {
        offer(message);
    }

    @Override
    public boolean offer(DatagramQueuedMessageDispatch message, long timeout, TimeUnit unit) {
        return offer(message);
    }

    /** The calling worker's next message: one put behind the call it holds, else the next arrival. */
    @Override
    public DatagramQueuedMessageDispatch take() throws InterruptedException {
        return poll(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
    }

    @Override
    public DatagramQueuedMessageDispatch poll(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            DatagramQueuedMessageDispatch next = next();
            while (next == null) {
                if (nanos <= 0) {
                    return null;
                }
                nanos = available.awaitNanos(nanos);
                next = next();
            }
            return next;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public DatagramQueuedMessageDispatch poll() {
        lock.lock();
        try {
            return next();
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: the caller's next message, holding its call, or null when none is free. */
    private DatagramQueuedMessageDispatch next() {
        Integer mine = holding.get();
        if (mine != null) {
            ArrayDeque<Entry> behind = held.get(mine);
            Entry e = behind == null ? null : behind.poll();
            if (e != null) {
                waiting--;
                return e.message();
            }
            held.remove(mine);
            holding.remove();
        }
        Entry e;
        while ((e = arrivals.poll()) != null) {
            ArrayDeque<Entry> behind = held.get(e.call());
            if (behind == null) {
                held.put(e.call(), new ArrayDeque<>());
                holding.set(e.call());
                waiting--;
                return e.message();
            }
            behind.add(e);
        }
        return null;
    }

    @Override
    public DatagramQueuedMessageDispatch peek() {
        lock.lock();
        try {
            Entry head = arrivals.peek();
            return head == null ? null : head.message();
        } finally {
            lock.unlock();
        }
    }

    /** Messages received and not yet handed to a worker, those put behind a held call included. */
    @Override
    public int size() {
        return waiting;
    }

    @Override
    public int remainingCapacity() {
        return Integer.MAX_VALUE;
    }

    @Override
    public int drainTo(Collection<? super DatagramQueuedMessageDispatch> sink) {
        return drainTo(sink, Integer.MAX_VALUE);
    }

    /** Drains arrivals only: messages behind a held call stay for its holder. */
    @Override
    public int drainTo(Collection<? super DatagramQueuedMessageDispatch> sink, int maxElements) {
        lock.lock();
        try {
            int drained = 0;
            while (drained < maxElements && !arrivals.isEmpty()) {
                sink.add(arrivals.poll().message());
                waiting--;
                drained++;
            }
            return drained;
        } finally {
            lock.unlock();
        }
    }

    /** A snapshot of the arrivals not yet taken. */
    @Override
    public Iterator<DatagramQueuedMessageDispatch> iterator() {
        lock.lock();
        try {
            List<DatagramQueuedMessageDispatch> all = new ArrayList<>(arrivals.size());
            arrivals.forEach(e -> all.add(e.message()));
            return all.iterator();
        } finally {
            lock.unlock();
        }
    }
}
