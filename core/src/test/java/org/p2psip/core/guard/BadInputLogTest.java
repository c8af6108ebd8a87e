package org.p2psip.core.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.Test;

class BadInputLogTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void oneLinePerSourcePerIntervalWithTheSuppressedCount() throws Exception {
        BadInputLog log = new BadInputLog(Duration.ofSeconds(10), 100, 100);
        InetAddress a = InetAddress.getByName("192.0.2.1");
        assertEquals(0, log.admit(a, 0));
        for (int i = 1; i <= 7; i++) {
            assertEquals(-1, log.admit(a, i * SECOND));
        }
        assertEquals(7, log.admit(a, 10 * SECOND));
    }

    @Test
    void allSourcesTogetherAreCappedPerInterval() throws Exception {
        BadInputLog log = new BadInputLog(Duration.ofSeconds(10), 3, 100);
        int lines = 0;
        for (int i = 1; i <= 50; i++) {
            if (log.admit(InetAddress.getByName("192.0.2." + i), SECOND) >= 0) {
                lines++;
            }
        }
        assertEquals(3, lines);
        assertTrue(log.admit(InetAddress.getByName("192.0.2.99"), 12 * SECOND) >= 0);
    }

    @Test
    void anExcerptIsOneEscapedTruncatedLine() {
        byte[] attack = ("INVITE sip:x\r\nX: \u001b[31mred\u0000\\" + "A".repeat(200)).getBytes(StandardCharsets.ISO_8859_1);
        String line = BadInputLog.excerpt(attack, attack.length);
        assertFalse(line.contains("\n") || line.contains("\r") || line.contains("\u001b") || line.contains("\u0000"));
        assertTrue(line.startsWith("INVITE sip:x\\r\\nX: \\x1b[31mred\\x00\\\\"), line);
        assertTrue(line.endsWith("..."), line);
        assertTrue(line.length() < 120, line);
    }
}
