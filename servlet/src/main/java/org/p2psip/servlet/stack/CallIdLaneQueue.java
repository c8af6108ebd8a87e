package org.p2psip.servlet.stack;

import java.util.AbstractQueue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;

/**
 * The UDP processor's message queue, split into one lane per worker thread
 * and routed by Call-ID. The messages of one call are handled one at a
 * time, in the order they arrived. RFC 3261 §17.2.1 has a server
 * transaction pass its responses on in order, and a 180 handled by one
 * worker must not be overtaken by its 200 on another. That happened when
 * the RI's workers shared one queue: a UAS answering at once lost the
 * caller its ringing.
 *
 * <p>The RI keeps the same order for TCP with its thread-affinity executor.
 * The RI's worker loop is unchanged: it takes from this queue, and this
 * queue gives each worker thread its own lane. A worker is assigned its
 * lane on its first take. Workers share no lock, and the receiving thread
 * shares each lane's only with that lane's worker.
 */
final class CallIdLaneQueue extends AbstractQueue<DatagramQueuedMessageDispatch>
        implements BlockingQueue<DatagramQueuedMessageDispatch> {

    private final List<LinkedBlockingQueue<DatagramQueuedMessageDispatch>> lanes;
    private final AtomicInteger nextLane = new AtomicInteger();
    private final ThreadLocal<LinkedBlockingQueue<DatagramQueuedMessageDispatch>> ownLane;

    CallIdLaneQueue(int laneCount) {
        if (laneCount < 1) {
            throw new IllegalArgumentException("at least one lane: " + laneCount);
        }
        List<LinkedBlockingQueue<DatagramQueuedMessageDispatch>> l = new ArrayList<>(laneCount);
        for (int i = 0; i < laneCount; i++) {
            l.add(new LinkedBlockingQueue<>());
        }
        this.lanes = List.copyOf(l);
        this.ownLane = ThreadLocal.withInitial(() -> lanes.get(Math.floorMod(nextLane.getAndIncrement(), lanes.size())));
    }

    int laneCount() {
        return lanes.size();
    }

    /**
     * The lane for a datagram: a hash of its Call-ID value, or lane 0 when
     * it has none (it will be refused by the parser anyway).
     */
    static int laneOf(byte[] data, int length, int laneCount) {
        int[] value = callIdValue(data, length);
        if (value == null) {
            return 0;
        }
        int hash = 1;
        for (int i = value[0]; i < value[1]; i++) {
            hash = 31 * hash + data[i];
        }
        return Math.floorMod(hash ^ (hash >>> 16), laneCount);
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

    private LinkedBlockingQueue<DatagramQueuedMessageDispatch> laneFor(DatagramQueuedMessageDispatch message) {
        return lanes.get(laneOf(message.packet.getData(), message.packet.getLength(), lanes.size()));
    }

    /**
     * When the oldest message still waiting was received (wall-clock
     * milliseconds, as the RI stamps them), or -1 when none waits.
     */
    long oldestReceptionMillis() {
        long oldest = -1;
        for (LinkedBlockingQueue<DatagramQueuedMessageDispatch> lane : lanes) {
            DatagramQueuedMessageDispatch head = lane.peek();
            if (head != null && (oldest < 0 || head.getReceptionTime() < oldest)) {
                oldest = head.getReceptionTime();
            }
        }
        return oldest;
    }

    @Override
    public boolean offer(DatagramQueuedMessageDispatch message) {
        return laneFor(message).offer(message);
    }

    @Override
    public void put(DatagramQueuedMessageDispatch message) throws InterruptedException {
        laneFor(message).put(message);
    }

    @Override
    public boolean offer(DatagramQueuedMessageDispatch message, long timeout, TimeUnit unit) throws InterruptedException {
        return laneFor(message).offer(message, timeout, unit);
    }

    /** The next message of the calling worker's lane, waiting for one. */
    @Override
    public DatagramQueuedMessageDispatch take() throws InterruptedException {
        return ownLane.get().take();
    }

    @Override
    public DatagramQueuedMessageDispatch poll(long timeout, TimeUnit unit) throws InterruptedException {
        return ownLane.get().poll(timeout, unit);
    }

    @Override
    public DatagramQueuedMessageDispatch poll() {
        return ownLane.get().poll();
    }

    @Override
    public DatagramQueuedMessageDispatch peek() {
        return ownLane.get().peek();
    }

    @Override
    public int size() {
        int size = 0;
        for (LinkedBlockingQueue<DatagramQueuedMessageDispatch> lane : lanes) {
            size += lane.size();
        }
        return size;
    }

    @Override
    public int remainingCapacity() {
        return Integer.MAX_VALUE;
    }

    @Override
    public int drainTo(Collection<? super DatagramQueuedMessageDispatch> sink) {
        return drainTo(sink, Integer.MAX_VALUE);
    }

    @Override
    public int drainTo(Collection<? super DatagramQueuedMessageDispatch> sink, int maxElements) {
        int drained = 0;
        for (LinkedBlockingQueue<DatagramQueuedMessageDispatch> lane : lanes) {
            drained += lane.drainTo(sink, maxElements - drained);
        }
        return drained;
    }

    /** A snapshot of every lane, lane by lane. */
    @Override
    public Iterator<DatagramQueuedMessageDispatch> iterator() {
        List<DatagramQueuedMessageDispatch> all = new ArrayList<>();
        for (LinkedBlockingQueue<DatagramQueuedMessageDispatch> lane : lanes) {
            all.addAll(lane);
        }
        return all.iterator();
    }
}
