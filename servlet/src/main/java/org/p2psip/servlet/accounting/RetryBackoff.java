package org.p2psip.servlet.accounting;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a writer waits before trying a failed database again: the
 * {@code first} delay after one failure, doubling with each further one up
 * to {@code max}. A database that restarts in a second is back in use
 * within a few hundred milliseconds; one that is away for minutes is tried
 * every {@code max}, not hammered with connection attempts.
 *
 * @param first the wait after the first failure, positive
 * @param max   the longest wait, at least {@code first}
 */
public record RetryBackoff(Duration first, Duration max) {

    /** 100 ms, 200 ms, 400 ms ... up to 5 s. */
    public static final RetryBackoff STANDARD = new RetryBackoff(Duration.ofMillis(100), Duration.ofSeconds(5));

    public RetryBackoff {
        Objects.requireNonNull(first, "first");
        Objects.requireNonNull(max, "max");
        if (first.isNegative() || first.isZero()) {
            throw new IllegalArgumentException("the first retry delay must be positive");
        }
        if (max.compareTo(first) < 0) {
            throw new IllegalArgumentException("the longest retry delay must be at least the first");
        }
    }

    /** The wait after {@code failures} failures in a row (1 or more). */
    public Duration after(int failures) {
        if (failures < 1) {
            throw new IllegalArgumentException("a delay follows at least one failure, not " + failures);
        }
        Duration d = first;
        for (int i = 1; i < failures && d.compareTo(max) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(max) > 0 ? max : d;
    }
}
