package org.p2psip.servlet.accounting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** How long the accounting writer waits before trying a failed database again. */
class RetryBackoffTest {

    @Test
    void theWaitDoublesFromAHundredMillisecondsUpToFiveSeconds() {
        RetryBackoff b = RetryBackoff.STANDARD;
        assertEquals(Duration.ofMillis(100), b.after(1));
        assertEquals(Duration.ofMillis(200), b.after(2));
        assertEquals(Duration.ofMillis(400), b.after(3));
        assertEquals(Duration.ofMillis(3_200), b.after(6));
        assertEquals(Duration.ofSeconds(5), b.after(7));
        assertEquals(Duration.ofSeconds(5), b.after(1_000_000));
    }

    @Test
    void aWaitFollowsAFailure() {
        assertThrows(IllegalArgumentException.class, () -> RetryBackoff.STANDARD.after(0));
    }

    @Test
    void inconsistentDelaysAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new RetryBackoff(Duration.ZERO, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new RetryBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)));
    }
}
