package org.p2psip.core.guard;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One budget, shared by every source, for the requests a registrar can only
 * answer with a challenge: a REGISTER, SUBSCRIBE, PUBLISH or MESSAGE that
 * carries no {@code Authorization} or {@code Proxy-Authorization} header.
 * A per-source limit (Kamailio's pike) stops one address; a hundred
 * addresses each under it still add up to more than a node can answer, and
 * every one of those answers is work spent on nobody. Over the budget such a
 * request is dropped before it is parsed, so the node keeps its time for
 * requests with credentials, keep-alives, calls and responses (RFC 5390
 * §3.1: reject work early and cheaply); a phone whose first REGISTER is
 * dropped retransmits it (RFC 3261 §17.1.2.2) and gets its challenge when
 * the flood relents.
 *
 * <p>A token bucket of {@code perSecond} tokens refilled continuously, at
 * most {@code burst} at once; time is the caller's {@code nanoTime}, so it is
 * tested without sleeping. Lock-free: the receive path calls it for every
 * such request.
 */
public final class CredentialFreeBudget {

    private static final String[] BUDGETED = {"REGISTER ", "SUBSCRIBE ", "PUBLISH ", "MESSAGE "};

    private final long nanosPerToken;
    private final long burstNanos;
    /** The time at which the bucket would be empty: tokens left = (now - emptyAt) / nanosPerToken. */
    private final AtomicLong emptyAt;
    private final LongAdder dropped = new LongAdder();

    public CredentialFreeBudget(int perSecond, int burst, long nowNanos) {
        if (perSecond < 1 || burst < 1) {
            throw new IllegalArgumentException("a budget needs at least one request a second and a burst of one");
        }
        this.nanosPerToken = 1_000_000_000L / perSecond;
        this.burstNanos = nanosPerToken * burst;
        this.emptyAt = new AtomicLong(nowNanos - burstNanos);
    }

    /** Takes one token for a request received at {@code nowNanos}; false (and counted) when none is left. */
    public boolean admit(long nowNanos) {
        while (true) {
            long current = emptyAt.get();
            // A bucket idle for long holds no more than the burst.
            long base = Math.max(current, nowNanos - burstNanos);
            long next = base + nanosPerToken;
            if (next > nowNanos) {
                dropped.increment();
                return false;
            }
            if (emptyAt.compareAndSet(current, next)) {
                return true;
            }
        }
    }

    /** Requests refused so far. */
    public long dropped() {
        return dropped.sum();
    }

    /**
     * Whether the raw message is a request this budget governs: one of the
     * methods above with neither credentials header in its header section
     * (compact forms do not exist for those two headers, RFC 3261 §7.3.3).
     */
    public static boolean governs(byte[] data, int length) {
        return governs(ByteBuffer.wrap(data, 0, length));
    }

    /** As {@link #governs(byte[], int)}, for the bytes between the buffer's position and limit; it is not moved. */
    public static boolean governs(ByteBuffer message) {
        ByteBuffer data = message.slice();
        int length = data.limit();
        boolean budgeted = false;
        for (String method : BUDGETED) {
            if (startsWith(data, 0, length, method)) {
                budgeted = true;
                break;
            }
        }
        if (!budgeted) {
            return false;
        }
        for (int i = 0; i < length - 1; i++) {
            if (data.get(i) != '\n') {
                continue;
            }
            int line = i + 1;
            if (data.get(line) == '\r' || data.get(line) == '\n') {
                return true;
            }
            if (isHeader(data, line, length, "authorization") || isHeader(data, line, length,
                    "proxy-authorization")) {
                return false;
            }
        }
        return true;
    }

    /** Whether the line at {@code from} is header {@code name} (any case), not one whose name merely starts so. */
    private static boolean isHeader(ByteBuffer data, int from, int length, String name) {
        int after = from + name.length();
        return startsWith(data, from, length, name) && after < length
                && (data.get(after) == ':' || data.get(after) == ' ' || data.get(after) == '\t');
    }

    /** Whether {@code data[from..]} starts with {@code prefix}, letters compared without case. */
    private static boolean startsWith(ByteBuffer data, int from, int length, String prefix) {
        if (length - from < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            int b = data.get(from + i);
            char c = prefix.charAt(i);
            if (b != c && Character.toLowerCase((char) b) != c) {
                return false;
            }
        }
        return true;
    }
}
