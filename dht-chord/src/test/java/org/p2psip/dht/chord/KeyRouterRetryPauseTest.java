package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class KeyRouterRetryPauseTest {

    @Test
    void eachRetryWaitsTwiceAsLongAsTheOneBefore() {
        assertEquals(Duration.ofMillis(50), KeyRouter.retryPause(0));
        assertEquals(Duration.ofMillis(100), KeyRouter.retryPause(1));
        assertEquals(Duration.ofMillis(400), KeyRouter.retryPause(3));
    }

    @Test
    void pausesStopGrowingAtTheCap() {
        assertEquals(KeyRouter.MAX_RETRY_PAUSE, KeyRouter.retryPause(4));
        assertEquals(KeyRouter.MAX_RETRY_PAUSE, KeyRouter.retryPause(60));
        assertEquals(KeyRouter.MAX_RETRY_PAUSE, KeyRouter.retryPause(Integer.MAX_VALUE));
    }
}
