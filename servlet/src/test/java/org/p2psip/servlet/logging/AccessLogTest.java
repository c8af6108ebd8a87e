package org.p2psip.servlet.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AccessLogTest {

    @TempDir
    Path dir;

    @Test
    void eachTransactionIsOneLineInTheOrderRecordedAndCloseWritesThemAll() throws IOException {
        Path file = dir.resolve("access.log");
        try (AccessLog log = AccessLog.open(file, "127.0.0.1:5060")) {
            for (int i = 0; i < 5_000; i++) {
                log.record("192.0.2.7:5062", "REGISTER", "sip:u" + i + "@example.com", 200, 3_250_000, "call-" + i);
            }
            log.record("192.0.2.8:5060", "INVITE", "sip:bob@example.com", 486, -1, "call-x");
            assertEquals(0, log.dropped());
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertEquals(5_001, lines.size());
        assertTrue(lines.get(0).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z 127\\.0\\.0\\.1:5060 192\\.0\\.2\\.7:5062 REGISTER "
                + "sip:u0@example\\.com 200 3\\.2ms call-0"), lines.get(0));
        assertTrue(lines.get(4_999).endsWith(" 192.0.2.7:5062 REGISTER sip:u4999@example.com 200 3.2ms call-4999"), lines.get(4_999));
        assertTrue(lines.get(5_000).endsWith(" 192.0.2.8:5060 INVITE sip:bob@example.com 486 - call-x"), lines.get(5_000));
    }

    @Test
    void controlCharactersFromTheWireAreEscapedAndLongFieldsCut() throws IOException {
        Path file = dir.resolve("hostile.log");
        try (AccessLog log = AccessLog.open(file, "n")) {
            log.record("192.0.2.7:5062", "INVITE", "sip:bob@example.com", 404, -1, "x\u001b[2J\u001b]0;owned\u0007\r\nforged 200 line");
            log.record("192.0.2.7:5062", "REGISTER", "sip:a@b", 200, -1, "c".repeat(10_000));
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertEquals(2, lines.size(), lines.toString());
        assertTrue(lines.get(0).endsWith(" INVITE sip:bob@example.com 404 - x\\x1b[2J\\x1b]0;owned\\x07\\r\\nforged 200 line"),
                lines.get(0));
        assertTrue(lines.get(0).chars().noneMatch(c -> c < 0x20), lines.get(0));
        assertTrue(lines.get(1).endsWith(" - " + "c".repeat(AccessLog.MAX_FIELD) + "..."), lines.get(1));
    }

    @Test
    void anExistingFileIsAppendedTo() throws IOException {
        Path file = dir.resolve("kept.log");
        Files.writeString(file, "earlier line\n", StandardCharsets.UTF_8);
        try (AccessLog log = AccessLog.open(file, "n")) {
            log.record("192.0.2.7:5062", "BYE", "sip:a@b", 200, 1_000_000, "c");
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertEquals("earlier line", lines.get(0));
        assertTrue(lines.get(1).endsWith(" n 192.0.2.7:5062 BYE sip:a@b 200 1.0ms c"), lines.get(1));
    }

    @Test
    void aFileThatCannotBeOpenedFailsTheOpen() {
        assertThrows(IOException.class, () -> AccessLog.open(dir.resolve("no-such-dir").resolve("x.log"), "n"));
    }

    @Test
    void anUnknownLogLevelNamesTheAcceptedOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LogLevel.apply("loud"));
        assertTrue(e.getMessage().contains("trace, debug, info, warn, error"), e.getMessage());
    }
}
