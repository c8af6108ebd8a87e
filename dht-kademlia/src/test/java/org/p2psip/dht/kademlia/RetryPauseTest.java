package org.p2psip.dht.kademlia;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class RetryPauseTest {

    @Test
    void retriesBackOffByDoublingUpToOneSecond() {
        List<Long> pauses = new ArrayList<>();
        for (int attempt = 0; attempt < 8; attempt++) {
            pauses.add(IterativeLookups.retryPause(attempt));
        }
        assertEquals(List.of(50L, 100L, 200L, 400L, 800L, 1_000L, 1_000L, 1_000L), pauses);
        assertEquals(1_000L, IterativeLookups.retryPause(Integer.MAX_VALUE), "no overflow on a long-stuck operation");
    }
}
