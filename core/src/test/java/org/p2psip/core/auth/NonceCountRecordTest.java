package org.p2psip.core.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;

import org.junit.jupiter.api.Test;

class NonceCountRecordTest {

    private static final Instant NOW = Instant.parse("2026-11-28T02:00:00Z");

    @Test
    void encodedRecordReadsBackWhole() {
        NonceCountRecord r = NonceCountRecord.EMPTY.use(5, 42, NOW).orElseThrow();
        assertEquals(r, NonceCountRecord.decode(r.encode()));
        assertTrue(NonceCountRecord.decode(r.encode()).isCopy(5, 42, NOW.plusSeconds(1)));
    }

    @Test
    void aWindowWrittenByAnEarlierNodeKeepsItsCountsButRecognisesNoCopy() {
        NonceCountWindow window = NonceCountWindow.EMPTY.accept(5).orElseThrow();
        NonceCountRecord read = NonceCountRecord.decode(window.encode());
        assertEquals(window, read.window());
        assertFalse(read.isCopy(5, 0, NOW));
        assertTrue(read.use(5, 42, NOW).isEmpty());
    }

    @Test
    void anythingElseReadsAsEveryCountUsed() {
        NonceCountRecord read = NonceCountRecord.decode(new byte[] {1, 2, 3});
        assertTrue(read.use(1, 42, NOW).isEmpty());
        assertTrue(read.use(NonceCountWindow.MAX_COUNT, 42, NOW).isEmpty());
    }

    @Test
    void aCopyIsOfTheSameTransactionAndCountWithinSixtyFourT1() {
        NonceCountRecord r = NonceCountRecord.EMPTY.use(1, 42, NOW).orElseThrow();
        assertTrue(r.isCopy(1, 42, NOW.plusMillis(32_000)));
        assertFalse(r.isCopy(1, 42, NOW.plusMillis(32_001)));
        assertFalse(r.isCopy(1, 43, NOW));
        assertFalse(r.isCopy(2, 42, NOW));
        assertFalse(r.isCopy(1, 42, NOW.minusMillis(1)));
    }
}
