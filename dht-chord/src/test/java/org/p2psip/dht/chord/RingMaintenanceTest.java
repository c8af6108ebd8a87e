package org.p2psip.dht.chord;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;
import org.p2psip.core.overlay.OverlayException;

class RingMaintenanceTest {

    @Test
    void aRefusalIsLoggedAsItsMessageNotAStackTrace() {
        Throwable closed = new CompletionException(new OverlayException(OverlayException.Reason.CLOSED,
                "connection to overlay peer 127.0.0.1:9 closed"));
        assertEquals("connection to overlay peer 127.0.0.1:9 closed", RingMaintenance.reason(closed));
    }

    @Test
    void anExceptionWithoutAMessageIsNamedByItsClass() {
        assertEquals("TimeoutException", RingMaintenance.reason(new TimeoutException()));
    }
}
