package org.p2psip.core.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * A node's SIP traffic as Prometheus counts it: requests received by
 * method, responses sent by the method they answer and status class, and
 * the time from a REGISTER's or INVITE's arrival to the node's final
 * response to it.
 *
 * <p>Methods are the ones RFC 3261 and its extensions define (§7.1 and the
 * RFCs that add INFO, PRACK, UPDATE, SUBSCRIBE, NOTIFY, REFER, MESSAGE and
 * PUBLISH); any other method counts as {@code other}, so a client sending
 * made-up methods cannot grow the label set without bound (Prometheus
 * naming guidance: a label's values must be bounded). Status classes are
 * {@code 1xx} to {@code 6xx} (§7.2); a code outside 100..699 counts as
 * {@code other}.
 *
 * <p>Every recording is a few striped additions, safe from any thread;
 * readings are taken while recordings go on.
 */
public final class SipTraffic {

    /** The methods counted under their own name, in the order they are rendered; "other" follows them. */
    public static final List<String> METHODS = List.of("REGISTER", "INVITE", "ACK", "BYE", "CANCEL", "OPTIONS",
            "INFO", "PRACK", "UPDATE", "SUBSCRIBE", "NOTIFY", "REFER", "MESSAGE", "PUBLISH");
    /** The label of a method not in {@link #METHODS}, and of a status outside 100..699. */
    public static final String OTHER = "other";
    /** The status classes, in the order they are rendered; "other" follows them. */
    public static final List<String> STATUS_CLASSES = List.of("1xx", "2xx", "3xx", "4xx", "5xx", "6xx");
    /** The methods whose time to a final response is kept as a histogram: the first of {@link #METHODS}. */
    public static final List<String> TIMED_METHODS = List.of("REGISTER", "INVITE");

    private static final int LABELS = METHODS.size() + 1;
    private static final int CLASSES = STATUS_CLASSES.size() + 1;

    private final LongAdder[] received = adders(LABELS);
    private final LongAdder[] answered = adders(LABELS * CLASSES);
    private final LatencyHistogram[] timed = new LatencyHistogram[TIMED_METHODS.size()];

    /** Requests received, by method label. */
    public record MethodCount(String method, long count) {
    }

    /** Responses sent, by the method label they answer and their status class. */
    public record ResponseCount(String method, String statusClass, long count) {
    }

    /** Time from arrival to final response, by method label. */
    public record MethodLatency(String method, LatencySnapshot latency) {
    }

    public SipTraffic() {
        for (int i = 0; i < timed.length; i++) {
            timed[i] = new LatencyHistogram();
        }
    }

    /** The label {@code method} is counted under: itself if it is one of {@link #METHODS}, else "other". */
    public static String methodLabel(String method) {
        int i = methodIndex(method);
        return i < METHODS.size() ? METHODS.get(i) : OTHER;
    }

    /** The class label of {@code status}: "2xx" for 200..299, and so on; "other" outside 100..699. */
    public static String statusClass(int status) {
        int i = classIndex(status);
        return i < STATUS_CLASSES.size() ? STATUS_CLASSES.get(i) : OTHER;
    }

    /** A request of {@code method} reached the node's SIP handling. */
    public void received(String method) {
        received[methodIndex(method)].increment();
    }

    /** The node sent a response with {@code status} to a request of {@code method}. */
    public void answered(String method, int status) {
        answered[methodIndex(method) * CLASSES + classIndex(status)].increment();
    }

    /**
     * The node sent its final response to a request of {@code method} that
     * arrived {@code nanos} before: counted, and timed for REGISTER and INVITE.
     */
    public void answeredFinal(String method, int status, long nanos) {
        int m = methodIndex(method);
        answered[m * CLASSES + classIndex(status)].increment();
        // TIMED_METHODS are the first entries of METHODS, so a method's index is its histogram's.
        if (m < timed.length) {
            timed[m].record(nanos);
        }
    }

    /** Requests received so far, every method label in {@link #METHODS} order then "other", zeros included. */
    public List<MethodCount> requests() {
        List<MethodCount> out = new ArrayList<>(LABELS);
        for (int m = 0; m < LABELS; m++) {
            out.add(new MethodCount(label(m), received[m].sum()));
        }
        return out;
    }

    /** Responses sent so far, only the method and class pairs seen at least once. */
    public List<ResponseCount> responses() {
        List<ResponseCount> out = new ArrayList<>();
        for (int m = 0; m < LABELS; m++) {
            for (int c = 0; c < CLASSES; c++) {
                long n = answered[m * CLASSES + c].sum();
                if (n > 0) {
                    out.add(new ResponseCount(label(m), c < STATUS_CLASSES.size() ? STATUS_CLASSES.get(c) : OTHER, n));
                }
            }
        }
        return out;
    }

    /** The final-response times of {@link #TIMED_METHODS}, in that order. */
    public List<MethodLatency> latencies() {
        List<MethodLatency> out = new ArrayList<>(timed.length);
        for (int t = 0; t < timed.length; t++) {
            out.add(new MethodLatency(TIMED_METHODS.get(t), timed[t].snapshot()));
        }
        return out;
    }

    private static String label(int index) {
        return index < METHODS.size() ? METHODS.get(index) : OTHER;
    }

    private static int methodIndex(String method) {
        if (method == null) {
            return METHODS.size();
        }
        // Methods are case-sensitive tokens (RFC 3261 §7.1): "register" is not REGISTER.
        int i = METHODS.indexOf(method);
        return i >= 0 ? i : METHODS.size();
    }

    private static int classIndex(int status) {
        return status >= 100 && status <= 699 ? status / 100 - 1 : STATUS_CLASSES.size();
    }

    private static LongAdder[] adders(int n) {
        LongAdder[] a = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }
}
