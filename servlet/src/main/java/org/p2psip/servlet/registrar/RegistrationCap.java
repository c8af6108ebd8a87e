package org.p2psip.servlet.registrar;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The most values a node will hold: past it, REGISTERs that could store a
 * binding are refused with {@code 503 Service Unavailable} and a Retry-After
 * (RFC 3261 §21.5.4) instead of growing the heap until the node dies.
 * Fetches, refreshes to zero and removals still pass: they only shrink.
 *
 * @param stored     what the node's DHT holds now (owned and replicated); negative when it cannot tell
 * @param max        the cap
 * @param retryAfter what a refused client is told to wait
 */
public record RegistrationCap(LongSupplier stored, long max, Duration retryAfter) {

    public RegistrationCap {
        Objects.requireNonNull(stored, "stored");
        Objects.requireNonNull(retryAfter, "retryAfter");
        if (max < 1) {
            throw new IllegalArgumentException("the registration cap must be at least 1");
        }
    }

    /** Whether the node holds its cap's worth already. */
    public boolean reached() {
        long n = stored.getAsLong();
        return n >= 0 && n >= max;
    }
}
