package org.p2psip.loadtest.connections;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The REGISTER refreshes of {@code bench connections --register-rate}: every
 * connection registers its own AOR ({@code sip:connN@DOMAIN}) with a
 * Contact at its own address, and refreshes it on its turn, the way phones
 * holding a connection to their proxy refresh every few minutes
 * (RFC 3261 §10.2.4). Answers are read from each connection's byte stream:
 * a status line ({@code SIP/2.0 NNN}) may arrive split across reads, so
 * each connection keeps how much of one it has seen.
 *
 * <p>At most one REGISTER is outstanding per connection: one whose turn
 * comes again before it was answered counts as unanswered. Each is counted
 * in the phase it was sent in: the initial registration, sent as the
 * connection opens (a phone registers once it is connected), or the
 * refreshes that follow once all are open.
 */
final class RefreshLoad {

    private static final byte[] STATUS = "SIP/2.0 ".getBytes(StandardCharsets.US_ASCII);

    private final String domain;
    private final String nonce = Long.toHexString(System.nanoTime());
    private final int[] cseq;
    private final long[] sentAt;
    /** How many bytes of {@code SIP/2.0 NNN} each connection has matched so far. */
    private final byte[] matched;
    private final short[] status;
    /** The phase each connection's outstanding REGISTER was sent in. */
    private final Tally[] phaseOf;
    private final Tally initial;
    private final Tally refreshes;
    private Tally current;

    /** What one phase sent and got back. */
    private static final class Tally {
        final Map<Integer, Integer> finals = new TreeMap<>();
        long[] latencyMicros;
        int latencies;
        long sent;
        long unanswered;

        Tally(int expected) {
            latencyMicros = new long[Math.max(16, expected)];
        }

        void latency(long micros) {
            if (latencies == latencyMicros.length) {
                latencyMicros = Arrays.copyOf(latencyMicros, latencies * 2);
            }
            latencyMicros[latencies++] = micros;
        }
    }

    /**
     * @param slots    connections
     * @param expected about how many REGISTERs the run will send, to size the latency record
     */
    RefreshLoad(String domain, int slots, int expected) {
        this.domain = domain;
        this.cseq = new int[slots];
        this.sentAt = new long[slots];
        this.matched = new byte[slots];
        this.status = new short[slots];
        this.phaseOf = new Tally[slots];
        this.initial = new Tally(slots);
        this.refreshes = new Tally(expected);
        this.current = initial;
    }

    /** REGISTERs from now on are refreshes. */
    void startRefreshes() {
        current = refreshes;
    }

    /** The next REGISTER of connection {@code slot}, which is bound at {@code local}; counts it as sent at {@code now}. */
    byte[] next(int slot, InetSocketAddress local, long now) {
        if (sentAt[slot] != 0) {
            phaseOf[slot].unanswered++;
        }
        sentAt[slot] = now;
        phaseOf[slot] = current;
        current.sent++;
        int n = ++cseq[slot];
        String host = local.getAddress().getHostAddress();
        String me = (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + local.getPort();
        String user = "conn" + slot;
        String aor = "sip:" + user + "@" + domain;
        String text = "REGISTER sip:" + domain + " SIP/2.0\r\n"
                + "Via: SIP/2.0/TCP " + me + ";branch=z9hG4bK" + nonce + "." + slot + "." + n + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <" + aor + ">;tag=" + nonce + "-" + slot + "\r\n"
                + "To: <" + aor + ">\r\n"
                + "Call-ID: refresh-" + slot + "-" + nonce + "\r\n"
                + "CSeq: " + n + " REGISTER\r\n"
                + "Contact: <sip:" + user + "@" + me + ";transport=tcp>\r\n"
                + "Expires: 3600\r\n"
                + "Content-Length: 0\r\n"
                + "\r\n";
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** Reads the status lines in bytes the target sent on connection {@code slot}. */
    void received(int slot, ByteBuffer bytes, long now) {
        while (bytes.hasRemaining()) {
            byte c = bytes.get();
            int m = matched[slot];
            if (m < STATUS.length) {
                matched[slot] = (byte) (c == STATUS[m] ? m + 1 : c == STATUS[0] ? 1 : 0);
            } else if (c >= '0' && c <= '9') {
                status[slot] = (short) (status[slot] * 10 + (c - '0'));
                matched[slot]++;
                if (matched[slot] == STATUS.length + 3) {
                    answered(slot, status[slot], now);
                    matched[slot] = 0;
                    status[slot] = 0;
                }
            } else {
                matched[slot] = 0;
                status[slot] = 0;
            }
        }
    }

    private void answered(int slot, int code, long now) {
        if (code < 200 || sentAt[slot] == 0) {
            return;
        }
        Tally t = phaseOf[slot];
        t.finals.merge(code, 1, Integer::sum);
        t.latency(TimeUnit.NANOSECONDS.toMicros(now - sentAt[slot]));
        sentAt[slot] = 0;
    }

    /** The initial registrations, counting those still unanswered at the end as unanswered. */
    RefreshReport initialReport(double seconds) {
        return report(initial, seconds);
    }

    /** The refreshes, likewise. */
    RefreshReport refreshReport(double seconds) {
        return report(refreshes, seconds);
    }

    private RefreshReport report(Tally t, double seconds) {
        long pending = 0;
        for (int i = 0; i < sentAt.length; i++) {
            if (sentAt[i] != 0 && phaseOf[i] == t) {
                pending++;
            }
        }
        long[] sorted = Arrays.copyOf(t.latencyMicros, t.latencies);
        Arrays.sort(sorted);
        return new RefreshReport(t.sent, t.finals, t.unanswered + pending, seconds, sorted);
    }
}
