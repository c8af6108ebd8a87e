package org.p2psip.balancer;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Optional;

/**
 * What a node said about its load in the balancer's Via of a response
 * (RFC 7339 §4, §5.2): {@code oc=N} asks for N % fewer requests under the
 * loss algorithm, for {@code oc-validity} milliseconds; {@code oc-seq}
 * orders the node's instructions, so an older one arriving late is ignored.
 * {@code oc=0} or {@code oc-validity=0} ends the reduction.
 *
 * @param percent     requests to shed, 0..100
 * @param validityMs  how long it holds, in milliseconds
 * @param sequence    the instruction's place in the node's order, or null when the node sent none
 */
public record OverloadControl(int percent, long validityMs, BigDecimal sequence) {

    /** RFC 7339 §5.2: without oc-validity, an instruction holds for 500 ms. */
    public static final long DEFAULT_VALIDITY_MS = 500;

    public OverloadControl {
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("oc must be 0..100, not " + percent);
        }
        if (validityMs < 0) {
            throw new IllegalArgumentException("oc-validity must not be negative");
        }
    }

    /** Whether this instruction ends any reduction in force. */
    public boolean lifts() {
        return percent == 0 || validityMs == 0;
    }

    /**
     * The instruction in a Via's parameters, or empty when there is none
     * (no {@code oc}, or {@code oc} without a value, which is only the
     * balancer's own offer to take part) or it is not well formed, in which
     * case it is ignored as RFC 7339 §5.2 asks of a malformed one.
     */
    public static Optional<OverloadControl> from(Map<String, String> viaParams) {
        String oc = viaParams.get("oc");
        if (oc == null || oc.isEmpty()) {
            return Optional.empty();
        }
        String algo = unquote(viaParams.getOrDefault("oc-algo", "loss"));
        if (!"loss".equalsIgnoreCase(algo)) {
            return Optional.empty();
        }
        try {
            int percent = Integer.parseInt(oc);
            String validity = viaParams.get("oc-validity");
            long validityMs = validity == null || validity.isEmpty() ? DEFAULT_VALIDITY_MS : Long.parseLong(validity);
            String seq = viaParams.get("oc-seq");
            BigDecimal sequence = seq == null || seq.isEmpty() ? null : new BigDecimal(seq);
            if (percent < 0 || percent > 100 || validityMs < 0 || seq != null && seq.length() > 40) {
                return Optional.empty();
            }
            return Optional.of(new OverloadControl(percent, validityMs, sequence));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static String unquote(String s) {
        return s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"") ? s.substring(1, s.length() - 1) : s;
    }
}
