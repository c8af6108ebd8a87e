package org.p2psip.core.store;

import java.util.Objects;

/**
 * The write-behind decision of a {@link FlushPolicy}: given how many
 * changes wait and since when, flush now, or wait how long. Pure: the time
 * comes in as an argument.
 */
public final class FlushSchedule {

    private final FlushPolicy policy;

    public FlushSchedule(FlushPolicy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
    }

    /**
     * Nanoseconds to wait before the next flush: 0 to flush now, -1 to
     * wait for a change when none is pending.
     *
     * @param pending         changes waiting
     * @param oldestSinceNanos when the oldest of them came, on the same monotonic clock as {@code nowNanos}
     */
    public long waitNanos(int pending, long oldestSinceNanos, long nowNanos) {
        if (pending == 0) {
            return -1;
        }
        if (pending >= policy.count()) {
            return 0;
        }
        long left = policy.interval().toNanos() - (nowNanos - oldestSinceNanos);
        return Math.max(0, left);
    }
}
