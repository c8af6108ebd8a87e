package org.p2psip.loadtest.flood;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class FloodReportTest {

    @Test
    void theShareCountsUnansweredProbesAsMisses() {
        FloodReport r = new FloodReport(1_000, 1.0, 10, new long[] {1, 2, 3, 900, 1_000, 1_001, 5_000}, -1, -1, -1);
        assertEquals(0.5, r.answeredWithin(1_000), 1e-9);
        assertEquals(900, r.medianMillis());
    }

    @Test
    void aProbeIsMatchedByItsCallIdInEitherForm() {
        assertEquals("abc", FloodCommand.callId("SIP/2.0 200 OK\r\nCall-ID: abc\r\n\r\n"));
        assertEquals("xyz", FloodCommand.callId("SIP/2.0 200 OK\r\ni: xyz\r\n\r\n"));
        assertNotEquals("abc", FloodCommand.callId("SIP/2.0 200 OK\r\n\r\n"));
    }

    @Test
    void theFloodIsRefusedForATargetOffLoopback() {
        int code = FloodCommand.commandLine().execute("--target", "192.0.2.1:5060", "--duration", "1");
        assertEquals(2, code);
    }
}
