package org.p2psip.servlet.proxy;

import java.util.Collection;
import java.util.Set;

/**
 * Picks the response a proxy sends upstream once every branch is final
 * (RFC 3261 §16.7 item 6): a 6xx if there is one, otherwise the lowest
 * response class; among 4xx the ones a client can act on (401, 407, 415,
 * 420, 484) first, a 430 last. A chosen 503 becomes 500, because the 503 described the
 * next hop, not this proxy; a chosen 430 (Flow Failed) becomes 480, because
 * 430 is meant for proxies only (RFC 5626 §11.5) and, to the caller, the
 * callee is just not reachable now. With no response at all the answer is 408.
 */
public final class ResponseChoice {

    private static final Set<Integer> ACTIONABLE_4XX = Set.of(401, 407, 415, 420, 484);

    private ResponseChoice() {
    }

    /** The status to pick among {@code statuses}; -1 when the collection is empty. */
    public static int best(Collection<Integer> statuses) {
        int best = -1;
        for (int s : statuses) {
            if (best < 0 || better(s, best)) {
                best = s;
            }
        }
        return best;
    }

    /** Whether {@code candidate} should replace {@code current} as the best final response. */
    public static boolean better(int candidate, int current) {
        int cc = candidate / 100;
        int kc = current / 100;
        if (kc == 2) {
            return false;
        }
        if (cc == 2) {
            return true;
        }
        if (kc == 6) {
            return false;
        }
        if (cc == 6) {
            return true;
        }
        if (cc != kc) {
            return cc < kc;
        }
        if (cc == 4) {
            if (current == 430 || candidate == 430) {
                // A failed flow says nothing about the callee; any other 4xx says more.
                return current == 430 && candidate != 430;
            }
            return ACTIONABLE_4XX.contains(candidate) && !ACTIONABLE_4XX.contains(current);
        }
        return false;
    }

    /** The status actually sent upstream for a chosen {@code status}. */
    public static int upstreamStatus(int status) {
        return switch (status) {
            case 503 -> 500;
            case 430 -> 480;
            default -> status;
        };
    }

    /** The reason phrase for a status {@link #upstreamStatus} changed. */
    public static String upstreamReason(int status) {
        return upstreamStatus(status) == 480 ? "Temporarily Unavailable" : "Server Internal Error";
    }
}
